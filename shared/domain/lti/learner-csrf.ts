/**
 * The course page's CSRF token (decision 0049): a one-way digest of the learner's session cookie.
 * Bound to that session, it needs no stored state and no secret of its own: a cross-site page can
 * make the browser send the cookie but can read neither the cookie nor the page that shows the
 * token, and the token does not give the cookie back.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

export const csrfTokenFor = (session: string): string =>
  createHash('sha256').update(`lms-learner-csrf:${session}`).digest('base64url')

/** Compared in constant time, so the answer's timing tells nothing about how much of it matched. */
export function csrfTokenFits(session: string, token: string | undefined): boolean {
  if (!token) return false
  const expected = Buffer.from(csrfTokenFor(session))
  const given = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
