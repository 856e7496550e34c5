/**
 * The SES sender through the product's SESv2 client, with aws-sdk-client-mock in SES's place: the
 * sender identity and the configuration set from config, both bodies, tags without personal data;
 * and SES's refusals (a rejection for good, a throttle) leave with their name only.
 */
import { MessageRejected, SendEmailCommand, TooManyRequestsException } from '@aws-sdk/client-sesv2'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { MailMessage } from '../../../shared/domain/notifications/mail.ts'
import { renderSamples } from '../../../shared/domain/notifications/samples.ts'
import { ses } from '../../../shared/aws/ses.ts'

vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return {
    config: { ...actual.config, mailFrom: 'no-reply@mail.example.org', sesConfigurationSet: 'lms-mail' },
  }
})

const { sesSender, MailTransportError } = await import('../../../shared/mail/ses-sender.ts')

const sesMock = mockClient(ses)
beforeEach(() => {
  sesMock.reset()
  sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-42' })
})
afterAll(() => sesMock.restore())

const [sample] = renderSamples({ template: 'waitlist_promoted', locale: 'fr-CA' })
const message: MailMessage = {
  to: 'zoe@example.com',
  subject: sample!.subject,
  text: sample!.text,
  html: sample!.html,
  template: 'waitlist_promoted',
  locale: 'fr-CA',
  notificationId: 'n-1',
  tenantId: 't-1',
}
const refusal = 'Email address is not verified: zoe@example.com'

describe('Functions: SES sender (SESv2 SendEmail)', () => {
  it('sends from the sender identity with the configuration set, both bodies in UTF-8, and tags without personal data', async () => {
    const sent = await sesSender.send(message, '2026-11-23T10:00:00.000Z')

    expect(sent).toEqual({ messageId: 'ses-42' })
    const calls = sesMock.commandCalls(SendEmailCommand)
    expect(calls).toHaveLength(1)
    expect(calls[0]?.args[0].input).toEqual({
      FromEmailAddress: 'no-reply@mail.example.org',
      Destination: { ToAddresses: ['zoe@example.com'] },
      ConfigurationSetName: 'lms-mail',
      Content: {
        Simple: {
          Subject: {
            Data: 'Une place s’est libérée : vous êtes inscrit au cours Workplace Fire Safety',
            Charset: 'UTF-8',
          },
          Body: {
            Text: { Data: sample!.text, Charset: 'UTF-8' },
            Html: { Data: sample!.html, Charset: 'UTF-8' },
          },
        },
      },
      EmailTags: [
        { Name: 'template', Value: 'waitlist_promoted' },
        { Name: 'notification', Value: 'n-1' },
      ],
    })
    expect(sample!.text).toContain('Bonjour Zoé,')
    expect(sample!.html).toContain('<p>Bonjour Zoé,</p>')
  })

  it('gives a refusal for good and a throttle their names only, the first as permanent', async () => {
    sesMock
      .on(SendEmailCommand)
      .rejectsOnce(new MessageRejected({ $metadata: { httpStatusCode: 400 }, message: refusal }))
      .rejectsOnce(new TooManyRequestsException({ $metadata: { httpStatusCode: 429 }, message: refusal }))

    const rejected: unknown = await sesSender
      .send(message, '2026-11-23T10:00:00.000Z')
      .catch((e: unknown) => e)
    const throttled: unknown = await sesSender
      .send(message, '2026-11-23T10:00:00.000Z')
      .catch((e: unknown) => e)

    expect(rejected).toBeInstanceOf(MailTransportError)
    expect(rejected).toMatchObject({ transportError: 'MessageRejected', permanent: true })
    expect(throttled).toMatchObject({ transportError: 'TooManyRequestsException', permanent: false })
    expect(String((rejected as Error).message)).not.toContain('@')
    expect(String((throttled as Error).message)).not.toContain('@')
  })
})
