/**
 * An e-mail as the product sends it, and the port it is sent through. The adapters (Amazon SES v2,
 * the local sink) live in shared/mail/; the domain only knows what a message is.
 */
import type { NotificationTemplate } from '../events.ts'
import type { Locale } from '../users/user.ts'

export interface MailMessage {
  /** One address a message: each recipient gets (and is marked as sent) their own. */
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly template: NotificationTemplate
  readonly locale: Locale
  readonly notificationId: string
  /** The tenant the notification belongs to; null for the platform's own (contact requests). */
  readonly tenantId: string | null
}

export interface MailSender {
  /**
   * Hands the message to the transport.
   * @returns the transport's id of the message
   * @throws when the transport did not accept it (the caller retries later)
   */
  send(message: MailMessage, at: string): Promise<{ readonly messageId: string }>
}
