/**
 * The notifications worker in-process against the test stack's table, with aws-sdk-client-mock in
 * SES's place only to inject faults: a throttled send is retried (not lost, not doubled), copies of one message
 * at the same time send once, a deactivated learner is skipped, and no log line holds an address,
 * a name or a body.
 */
import { randomUUID } from 'node:crypto'
import { MessageRejected, SendEmailCommand, TooManyRequestsException } from '@aws-sdk/client-sesv2'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { handler as notificationWorker } from '../../functions/workers/notification-delivery/handler.ts'
import { newNotification, type Notification } from '../../shared/domain/events.ts'
import { sesSender } from '../../shared/mail/ses-sender.ts'
import { ses } from '../../shared/aws/ses.ts'
import { sendNotification } from '../../shared/services/deliveries/mail-service.ts'
import type { NotificationMessage } from '../../shared/services/deliveries/mail-service.ts'
import { listSinkMail, markerParams } from '../../shared/store/deliveries/mail-store.ts'
import { getItem } from '../../shared/store/core/db.ts'
import { user } from '../helpers/learning.ts'
import { sqsEvent, sqsRecord } from '../helpers/sqs-event.ts'
import { newTenant } from '../helpers/tenants.ts'

vi.mock('../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/config.ts')>()
  return {
    ...actual,
    config: {
      ...actual.config,
      logLevel: 'info',
      sesConfigurationSet: 'lms-mail',
      mailFrom: 'no-reply@lms.test',
    },
  }
})

const sesMock = mockClient(ses)
afterAll(() => sesMock.restore())
/** What SES answers when it refuses: the error type, a message quoting the address. */
const refusal = (type: 'TooManyRequestsException' | 'MessageRejected', status: number, message: string) =>
  new (type === 'MessageRejected' ? MessageRejected : TooManyRequestsException)({
    $metadata: { httpStatusCode: status },
    message,
  })
/** The SendEmail inputs SES received. */
const sent = () => sesMock.commandCalls(SendEmailCommand).map((c) => c.args[0].input)

let stdout: MockInstance<typeof process.stdout.write>
beforeEach(() => {
  sesMock.reset()
  sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' })
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
})
afterEach(() => stdout.mockRestore())

const logText = () => stdout.mock.calls.map(([chunk]) => String(chunk)).join('')

const confirmation = (tenantId: string, userId: string): NotificationMessage => ({
  tenantId,
  notification: newNotification(
    'enrollment_confirmation',
    userId,
    { enrollmentId: randomUUID(), courseId: randomUUID(), courseTitle: 'Fire Safety', status: 'active' },
    new Date().toISOString(),
  ) as Notification,
})

/** `copies` copies of one message in one batch, as SQS may hand a message out more than once. */
const copiesOf = (msg: NotificationMessage, copies: number) =>
  sqsEvent(
    ...Array.from({ length: copies }, (_, i) =>
      sqsRecord(JSON.stringify(msg), { messageId: `m${i}`, queue: 'lms-notifications' }),
    ),
  )

describe('Worker: notification delivery (in-process)', () => {
  it('retries a send SES throttled: the message comes back and the mail goes out once', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await user(t, { locale: 'fr-CA', first_name: 'Zoé' })
    const msg = confirmation(t.tenant.id, learner.id)
    // Throttled (once the SDK's own attempts are spent), then accepted.
    sesMock
      .on(SendEmailCommand)
      .rejectsOnce(refusal('TooManyRequestsException', 429, `Rate exceeded for ${learner.email}`))
      .resolves({ MessageId: 'ses-1' })

    // Act
    const first = sendNotification(msg, sesSender)
    await expect(first).rejects.toMatchObject({ name: 'MailNotSent' })
    await sendNotification(msg, sesSender)
    await sendNotification(msg, sesSender)

    // Assess: the first delivery throttled, then one accepted; the redelivery after it sends nothing
    const calls = sent()
    expect(calls).toHaveLength(2)
    const input = calls[1] as {
      Content?: { Simple?: { Body?: { Html?: { Data?: string } } } }
    }
    expect(input).toMatchObject({
      FromEmailAddress: 'no-reply@lms.test',
      Destination: { ToAddresses: [learner.email] },
      ConfigurationSetName: 'lms-mail',
      Content: { Simple: { Subject: { Data: 'Inscription confirmée : Fire Safety', Charset: 'UTF-8' } } },
    })
    expect(input?.Content?.Simple?.Body?.Html?.Data).toContain('<html lang="fr-CA">')
    const p = markerParams.get({
      partition: `T#${t.tenant.id}`,
      notificationId: msg.notification.id,
      recipientKey: learner.id,
    })
    expect(await getItem(p.Key, { ConsistentRead: true })).toMatchObject({
      status: 'sent',
      message_id: 'ses-1',
    })
    const logs = logText()
    expect(logs).toContain('"msg":"mail not sent"')
    expect(logs).toContain('"msg":"mail sent"')
    expect(logs).not.toContain(learner.email)
    expect(logs).not.toContain('Zoé')
    expect(logs).not.toContain('Fire Safety')
  })

  it('sends once when copies of one message are handled at the same time', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await user(t)
    const msg = confirmation(t.tenant.id, learner.id)

    // Act: five copies in one batch, then one more copy later
    const batch = await notificationWorker(copiesOf(msg, 5))
    const again = await notificationWorker(copiesOf(msg, 1))

    // Assess: copies that found the claim held come back (reported), none sends a second mail
    expect(batch.batchItemFailures.length).toBeLessThan(5)
    expect(again).toEqual({ batchItemFailures: [] })
    const mails = await listSinkMail({ tenantId: t.tenant.id, to: learner.email })
    expect(mails).toHaveLength(1)
    expect(mails[0]).toMatchObject({
      template: 'enrollment_confirmation',
      locale: 'en',
      notificationId: msg.notification.id,
    })
  })

  it('skips a learner deactivated before the mail went out, and records why', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await user(t, { is_active: false })
    const msg = confirmation(t.tenant.id, learner.id)

    // Act
    await sendNotification(msg, sesSender)

    // Assess
    expect(sent()).toHaveLength(0)
    const p = markerParams.get({
      partition: `T#${t.tenant.id}`,
      notificationId: msg.notification.id,
      recipientKey: learner.id,
    })
    expect(await getItem(p.Key, { ConsistentRead: true })).toMatchObject({
      status: 'skipped',
      reason: 'user_inactive',
    })
    expect(logText()).toContain('"reason":"user_inactive"')
  })

  it('does not send again a message SES rejected for good, and says so by the error name only', async () => {
    // Prepare
    const t = await newTenant()
    const learner = await user(t)
    const msg = confirmation(t.tenant.id, learner.id)
    sesMock
      .on(SendEmailCommand)
      .rejectsOnce(refusal('MessageRejected', 400, `Email address is not verified: ${learner.email}`))
      .resolves({ MessageId: 'ses-1' })

    // Act
    await sendNotification(msg, sesSender)
    await sendNotification(msg, sesSender)

    // Assess
    expect(sent()).toHaveLength(1)
    expect(logText()).toContain('"transportError":"MessageRejected"')
    expect(logText()).not.toContain(learner.email)
  })
})
