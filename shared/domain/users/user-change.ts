/**
 * A change to a user: the fields a use case may move, the user they make, and the events the
 * change causes. The store writes `before` → `after` as one conditional transaction.
 */
import { newEvent, type DomainEvent } from '../events.ts'
import type { User } from './user.ts'

type ChangeableField =
  | 'firstName'
  | 'lastName'
  | 'role'
  | 'customRoleIds'
  | 'isActive'
  | 'externalId'
  | 'customFields'
  | 'locale'
  | 'lastLoginAt'
  | 'loginPeriod'
  // Only erasure changes these two.
  | 'email'
  | 'erasedAt'

/** Built up by a use case, field by field. */
export type UserChanges = { -readonly [K in ChangeableField]?: User[K] }

/** The user after `changes` (undefined fields stay as they are), updated at `at`. */
export function applyUserChanges(user: User, changes: UserChanges, at: string): User {
  const defined = Object.entries(changes).filter(([, value]) => value !== undefined)
  return { ...user, ...Object.fromEntries(defined), updatedAt: at }
}

/** user.deactivated / user.reactivated when the change turns the account off or on. */
export function userChangeEvents(before: User, after: User, at: string): DomainEvent[] {
  if (before.isActive && !after.isActive) {
    // An erasure deactivates too: the event then carries the placeholder, never the old address.
    return [newEvent('user.deactivated', { userId: before.id, email: after.email }, at)]
  }
  if (!before.isActive && after.isActive) {
    return [newEvent('user.reactivated', { userId: before.id, email: before.email }, at)]
  }
  return []
}
