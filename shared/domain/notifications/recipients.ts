/**
 * Who a notification reaches, decided from what the worker read when it runs (not when the
 * notification was recorded): a learner deactivated or erased in between is not written to.
 */
import type { Notification } from '../events.ts'
import { locales, type Locale, type Role, type User } from '../users/user.ts'

/** The roles told about the tenant as a whole (usage alerts, with `userId` null). */
export const TENANT_CONTACT_ROLES: ReadonlySet<Role> = new Set<Role>(['owner', 'admin'])

export interface MailRecipient {
  /** Stable per notification: the user id, or `email:<address>` for an explicit address. */
  readonly key: string
  readonly address: string
  readonly locale: Locale
  readonly name: string | null
}

export type SkipReason = 'user_missing' | 'user_inactive' | 'user_erased'

/** Who the notification names, before it is resolved against the tenant's users. */
export type Addressee =
  | { readonly kind: 'address'; readonly address: string }
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'tenant_contacts' }

export function addresseeOf(n: Pick<Notification, 'userId' | 'email'>): Addressee {
  if (n.email !== undefined) return { kind: 'address', address: n.email }
  if (n.userId !== null) return { kind: 'user', userId: n.userId }
  return { kind: 'tenant_contacts' }
}

/**
 * An explicit address has no user and so no locale of its own: the notification may carry one
 * (`data.locale`, e.g. the locale of whoever asked for an export), else it is English.
 */
export function localeForAddress(data: Readonly<Record<string, unknown>>): Locale {
  const wanted = data.locale
  return locales.find((l) => l === wanted) ?? 'en'
}

export function addressRecipient(address: string, data: Readonly<Record<string, unknown>>): MailRecipient {
  return { key: `email:${address.toLowerCase()}`, address, locale: localeForAddress(data), name: null }
}

/** A named user receives it only while active and not erased. */
export function userRecipient(user: User | undefined): MailRecipient | SkipReason {
  if (!user) return 'user_missing'
  if (user.erasedAt !== undefined) return 'user_erased'
  if (!user.isActive) return 'user_inactive'
  return { key: user.id, address: user.email, locale: user.locale, name: user.firstName }
}

/** Every active, not erased owner and admin. */
export function tenantContactRecipients(users: readonly User[]): MailRecipient[] {
  return users
    .filter((u) => TENANT_CONTACT_ROLES.has(u.role as Role) && u.isActive && u.erasedAt === undefined)
    .map((u) => ({ key: u.id, address: u.email, locale: u.locale, name: u.firstName }))
}
