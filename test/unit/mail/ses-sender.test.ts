/**
 * The SES path without AWS: a local server stands in for SES v2 and receives exactly the SendEmail
 * the SDK's SESv2 client sends (same path, body and signed headers, signed for ses in the region):
 * the sender identity and the configuration set from config, both bodies, and tags without
 * personal data; and SES's refusals leave with their name only.
 */
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { MailMessage } from '../../../shared/domain/notifications/mail.ts'
import { renderSamples } from '../../../shared/domain/notifications/samples.ts'
import { startFakeAws } from '../../helpers/fake-aws.ts'
import { verifies, type Received } from '../../helpers/sigv4.ts'

vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return {
    config: { ...actual.config, mailFrom: 'no-reply@mail.example.org', sesConfigurationSet: 'lms-mail' },
  }
})

const { sesSenderFor, sendEmailInput, MailTransportError } =
  await import('../../../shared/mail/ses-sender.ts')

const REGION = 'eu-west-1'
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 't-1',
}
const fake = await startFakeAws('application/json', () => ({ status: 200, body: { MessageId: 'ses-42' } }))
afterAll(() => fake.close())
beforeEach(() => fake.reset())
const sender = sesSenderFor(() => ({
  endpoint: fake.endpoint,
  region: REGION,
  credentials: async () => credentials,
}))

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
    const sent = await sender.send(message, '2026-11-23T10:00:00.000Z')

    expect(sent).toEqual({ messageId: 'ses-42' })
    expect(fake.received).toHaveLength(1)
    expect(JSON.parse(fake.received[0]?.body ?? '{}')).toEqual({
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

  it('is the request the SDK client sends, signed for ses in the region', async () => {
    await sender.send(message, '2026-11-23T10:00:00.000Z')
    const sdk = new SESv2Client({ region: REGION, endpoint: fake.endpoint, credentials, maxAttempts: 1 })
    await sdk.send(new SendEmailCommand(sendEmailInput(message)))

    const [ours, theirs] = fake.received
    if (!ours || !theirs) throw new Error('expected two requests')
    for (const r of [ours, theirs]) {
      expect(r.method).toBe('POST')
      expect(r.url).toBe('/v2/email/outbound-emails')
      expect(r.headers['content-type']).toBe('application/json')
      expect(await verifies(r, credentials)).toEqual({ service: 'ses', region: REGION, ok: true })
    }
    expect(JSON.parse(ours.body)).toEqual(JSON.parse(theirs.body))
    const signed = (r: Received) =>
      /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))?.[1]?.split(';')
    const sdkSigned = (signed(theirs) ?? []).filter(
      (h) => !h.startsWith('amz-sdk-') && h !== 'x-amz-user-agent',
    )
    expect(signed(ours)).toEqual(expect.arrayContaining(sdkSigned))
  })

  it('gives a refusal for good and a throttle their names only, the first as permanent', async () => {
    const refusal = (type: string, status: number) => ({
      status,
      headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/` },
      body: { message: 'Email address is not verified: zoe@example.com' },
    })
    fake.replies = [
      refusal('MessageRejected', 400),
      ...[1, 2, 3].map(() => refusal('TooManyRequestsException', 429)),
    ]

    const rejected: unknown = await sender.send(message, '2026-11-23T10:00:00.000Z').catch((e: unknown) => e)
    const throttled: unknown = await sender.send(message, '2026-11-23T10:00:00.000Z').catch((e: unknown) => e)

    expect(rejected).toBeInstanceOf(MailTransportError)
    expect(rejected).toMatchObject({ transportError: 'MessageRejected', permanent: true })
    expect(throttled).toMatchObject({ transportError: 'TooManyRequestsException', permanent: false })
    expect(String((rejected as Error).message)).not.toContain('@')
    // A refusal for good is sent once; a throttle is tried three times, as the SDK client tried it.
    expect(fake.received).toHaveLength(4)
  })
})
