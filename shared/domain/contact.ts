/** A visitor's message to the company behind the product (the corporate site's contact form). */
import * as v from 'valibot'
import { Email, Name } from './users/user-schemas.ts'

export const ContactInput = v.object({
  name: Name,
  email: Email,
  company: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  subject: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  message: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('must not be empty'),
    v.maxLength(5000, 'must be at most 5000 characters'),
  ),
})
export type ContactInput = v.InferOutput<typeof ContactInput>

export interface ContactRequest {
  readonly id: string
  readonly name: string
  readonly email: string
  readonly company: string | null
  readonly subject: string | null
  readonly message: string
  readonly receivedAt: string
}
