/**
 * The MailSender of AWS: Amazon SES v2 SendEmail through the product's SES client
 * (shared/aws/ses.ts), from the configured sender identity, with the configuration set (event
 * publishing, suppression list). A transport error leaves with its name only: SES messages quote
 * the addresses they refused, and log lines hold no personal data.
 */
import { SendEmailCommand } from '@aws-sdk/client-sesv2'
import { ses } from '../aws/ses.ts'
import { config } from '../config.ts'
import type { MailMessage, MailSender } from '../domain/notifications/mail.ts'

/** SES refused this message for good (a malformed or rejected address): sending again cannot help. */
const PERMANENT = new Set(['MessageRejected', 'BadRequestException'])

export class MailTransportError extends Error {
  constructor(
    readonly transportError: string,
    readonly permanent: boolean,
  ) {
    super(`The mail transport refused the message: ${transportError}`)
    this.name = 'MailTransportError'
  }
}

export function sendEmailInput(m: MailMessage) {
  const part = (Data: string) => ({ Data, Charset: 'UTF-8' })
  return {
    FromEmailAddress: config.mailFrom,
    Destination: { ToAddresses: [m.to] },
    Content: {
      Simple: { Subject: part(m.subject), Body: { Text: part(m.text), Html: part(m.html) } },
    },
    ...(config.sesConfigurationSet ? { ConfigurationSetName: config.sesConfigurationSet } : {}),
    // Tags reach SES events (bounces, complaints) without any personal data.
    EmailTags: [
      { Name: 'template', Value: m.template },
      { Name: 'notification', Value: m.notificationId },
    ],
  }
}

export const sesSender: MailSender = {
  async send(m) {
    try {
      const out = await ses.send(new SendEmailCommand(sendEmailInput(m)))
      return { messageId: out.MessageId ?? '' }
    } catch (err) {
      const name = err instanceof Error ? err.name : 'UnknownError'
      throw new MailTransportError(name, PERMANENT.has(name))
    }
  },
}
