/**
 * The SES path without AWS: the SESv2 client mocked (aws-sdk-client-mock) receives exactly the
 * SendEmail the worker sends in AWS: the sender identity and the configuration set from config,
 * both bodies, and tags without personal data; and its errors leave with their name only.
 */
import { MessageRejected, SendEmailCommand, TooManyRequestsException } from '@aws-sdk/client-sesv2'
import { mockClient } from 'aws-sdk-client-mock'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { MailMessage } from '../../../shared/domain/notifications/mail.ts'
import { renderSamples } from '../../../shared/domain/notifications/samples.ts'

vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return {
    config: { ...actual.config, mailFrom: 'no-reply@mail.example.org', sesConfigurationSet: 'lms-mail' },
  }
})

const { ses, sesSender, MailTransportError } = await import('../../../shared/mail/ses-sender.ts')
const sesMock = mockClient(ses)
beforeEach(() => sesMock.reset())

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

describe('Functions: SES sender (SESv2 SendEmail)', () => {
  it('sends from the sender identity with the configuration set, both bodies in UTF-8, and tags without personal data', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-42' })

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
      .rejectsOnce(
        new MessageRejected({ $metadata: {}, message: 'Email address is not verified: zoe@example.com' }),
      )
      .rejectsOnce(
        new TooManyRequestsException({ $metadata: {}, message: 'Rate exceeded for zoe@example.com' }),
      )

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
  })
})
