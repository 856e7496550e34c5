/**
 * The MailSender of AWS: Amazon SES v2 SendEmail, from the configured sender identity, with the
 * configuration set (event publishing, suppression list). A transport error leaves with its name
 * only: SES messages quote the addresses they refused, and log lines hold no personal data.
 *
 * One signed REST-JSON call (shared/aws/signed-json-call.ts) rather than `@aws-sdk/client-sesv2`,
 * which was about 60 KiB of the notifications worker's bundle for this one operation
 * (docs/decisions/0013-request-path-cost.md); test/unit/mail/ses-sender.test.ts compares the
 * request with the client's.
 */
import { AwsCallError, awsEndpoint, callAwsJson, type AwsJsonService } from '../aws/signed-json-call.ts'
import { config } from '../config.ts'
import type { MailMessage, MailSender } from '../domain/notifications/mail.ts'
import { emulatorCredentials, lambdaCredentials } from '../aws/credentials.ts'

/** Where SendEmail goes: the configured endpoint (LocalStack, a test's server) or SES of the region. */
export type MailService = AwsJsonService

const fromConfig = (): MailService =>
  config.sesEndpoint
    ? {
        endpoint: config.sesEndpoint,
        region: config.region,
        credentials: emulatorCredentials,
      }
    : {
        endpoint: awsEndpoint('email', config.region),
        region: config.region,
        credentials: lambdaCredentials(),
      }

const sendEmail = { signingName: 'ses', path: '/v2/email/outbound-emails', name: 'SendEmail' } as const

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

/** The SES sender of a service (tests give a local server); `sesSender` is config's. */
export function sesSenderFor(service: () => MailService): MailSender {
  return {
    async send(m) {
      try {
        const out = (await callAwsJson(service(), sendEmail, sendEmailInput(m))) as { MessageId?: unknown }
        return { messageId: typeof out.MessageId === 'string' ? out.MessageId : '' }
      } catch (err) {
        const name = err instanceof AwsCallError ? err.errorType : 'UnknownError'
        throw new MailTransportError(name, PERMANENT.has(name))
      }
    },
  }
}

let configured: MailService | undefined
export const sesSender: MailSender = sesSenderFor(() => (configured ??= fromConfig()))
