/**
 * Erasing a learner: the identifying data is replaced for good, while the id, enrollments,
 * completions and certificates stay, so reports and counts remain true. The placeholder address
 * uses the reserved `.invalid` TLD (RFC 2606): it can never reach anyone or collide with a real one.
 */
import type { User } from './user.ts'

export const ERASED_FIRST_NAME = 'Erased'
export const ERASED_LAST_NAME = 'Learner'

export function erasedEmail(userId: string): string {
  return `erased-${userId}@erased.invalid`
}

/** The changes that erase `user` at `at`; an account already erased needs none. */
export function erasureOf(user: User, at: string) {
  if (user.erasedAt !== undefined) return {}
  return {
    email: erasedEmail(user.id),
    firstName: ERASED_FIRST_NAME,
    lastName: ERASED_LAST_NAME,
    externalId: null,
    customFields: {},
    isActive: false,
    erasedAt: at,
  }
}
