/** The user and the rules about roles that every channel (API, CLI, later SCIM) shares. */

export const roles = [
  'learner',
  'instructor',
  'manager',
  'group_admin',
  'ecommerce_admin',
  'admin',
  'owner',
] as const
export type Role = (typeof roles)[number]
/** `author` is retired but still accepted on write, and as a list filter for pre-migration rows. */
export const writableRoles = [...roles, 'author'] as const
export type WritableRole = (typeof writableRoles)[number]
export type StoredRole = Role | 'author'

/** Roles whose assignment needs the admin scope: a write-only key creates learners and instructors. */
export const privilegedRoles: ReadonlySet<StoredRole> = new Set([
  'manager',
  'group_admin',
  'ecommerce_admin',
  'admin',
  'owner',
])

export const userTypes = ['internal', 'partner', 'customer', 'contractor', 'volunteer'] as const
export type UserType = (typeof userTypes)[number]

export const locales = ['en', 'fr-CA'] as const
export type Locale = (typeof locales)[number]

/** A custom role every tenant starts with. */
export interface SeededRole {
  readonly id: string
  readonly name: string
  readonly permissions: readonly string[]
}

/** Seeded in every tenant; granted to users written with the retired `author` role. */
export const CONTENT_AUTHOR_ROLE = {
  id: 'content-author',
  name: 'Content Author',
  permissions: [
    'course.create',
    'course.update',
    'course.publish',
    'course.archive',
    'report.read',
    'scorm.manage',
  ],
} as const

/** The roles a new tenant is created with. */
export const SEEDED_ROLES: readonly SeededRole[] = [CONTENT_AUTHOR_ROLE]

export interface User {
  readonly id: string
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  readonly role: StoredRole
  readonly customRoleIds: readonly string[]
  readonly isActive: boolean
  readonly userType: UserType
  readonly externalId: string | null
  readonly customFields: Readonly<Record<string, unknown>>
  readonly locale: Locale
  readonly groupIds: readonly string[]
  readonly lastLoginAt: string | null
  /** The billing period (its start) of the last sign-in: what makes the person billable in it. */
  readonly loginPeriod?: string
  readonly createdAt: string
  readonly updatedAt: string
  /** Set once the person's identifying data was erased; the id and learning history remain. */
  readonly erasedAt?: string
}

/** A write with `author` stores a learner holding the seeded Content Author role. */
export function resolveRole(
  requested: WritableRole,
  currentCustomRoles: readonly string[] = [],
): { role: Role; customRoleIds: string[] } {
  if (requested === 'author') {
    const customRoleIds = currentCustomRoles.includes(CONTENT_AUTHOR_ROLE.id)
      ? [...currentCustomRoles]
      : [...currentCustomRoles, CONTENT_AUTHOR_ROLE.id]
    return { role: 'learner', customRoleIds }
  }
  return { role: requested, customRoleIds: [...currentCustomRoles] }
}

/**
 * Assigning a privileged role needs admin; so does changing the role of a user who holds one
 * (a write key must not demote an administrator).
 */
export function roleChangeNeedsAdmin(requested: WritableRole, current?: StoredRole): boolean {
  return (
    privilegedRoles.has(requested) ||
    (current !== undefined && current !== requested && privilegedRoles.has(current))
  )
}

/**
 * Any change to a user who holds a privileged role needs the admin scope, as assigning one does:
 * a write key deactivating an owner with PATCH would be the admin-only DELETE by another name.
 */
export function changeNeedsAdmin(current: StoredRole, requested?: WritableRole): boolean {
  return privilegedRoles.has(current) || (requested !== undefined && privilegedRoles.has(requested))
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}
