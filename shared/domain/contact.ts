/** A visitor's message to the company behind the product (the corporate site's contact form). */
import * as v from 'valibot'
import { text, textRules } from './text-rules.ts'
import { Email, Name } from './users/user-schemas.ts'

export const ContactInput = v.object({
  name: Name,
  email: Email,
  company: v.optional(text(textRules.contactCompany, { trimmed: true })),
  subject: v.optional(text(textRules.contactSubject, { trimmed: true })),
  message: text(textRules.contactMessage, { trimmed: true, required: true }),
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
