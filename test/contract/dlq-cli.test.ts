/**
 * `lms dlq list` and `lms dlq redrive --queue NAME` against the embedded stack: a notification set
 * aside in the notifications dead-letter queue shows in the list, and once redriven the worker
 * sends it (the mail sink has it) and the dead-letter queue no longer holds it.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs'
import { describe, expect, it } from 'vitest'
import { sqs } from '../../shared/aws/sqs.ts'
import type { NotificationMessage } from '../../shared/services/deliveries/mail-service.ts'
import { lms } from '../helpers/cli.ts'
import { until } from '../helpers/until.ts'

interface Listed {
  readonly queue: string
  readonly messages: number
  readonly messages_in_flight: number
  readonly dead_letter_queue_arn: string
}

async function deadLetters(): Promise<Listed[]> {
  const out = await lms('dlq', 'list')
  expect(out.code, out.stdout).toBe(0)
  return out.json.data as Listed[]
}

/** What a worker sets aside after its fifth failed receive, put straight into the dead-letter queue. */
async function setAside(message: NotificationMessage): Promise<void> {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'lms-notifications-dlq' }))
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(message) }))
}

describe('CLI: dlq list and redrive', () => {
  it('lists every worker queue with its dead-letter queue, and moves a set-aside message back to its worker', async () => {
    // Prepare: a tenant, and an export-ready notice for it that failed five times
    const slug = `dlq-${randomBytes(4).toString('hex')}`
    const tenant = await lms('tenant', 'create', '--slug', slug, '--plan', 'growth')
    expect(tenant.code, tenant.stdout).toBe(0)
    const to = `${slug}@example.com`
    await setAside({
      tenantId: tenant.json.id as string,
      notification: {
        id: randomUUID(),
        template: 'export_ready',
        userId: null,
        email: to,
        createdAt: new Date().toISOString(),
        data: { job_id: randomUUID(), report_type: 'enrollments', format: 'csv', row_count: 3 },
      },
    })

    // Act + Assess: the list shows it
    const before = await deadLetters()
    expect(before.map((q) => q.queue).sort()).toEqual([
      'ags',
      'exports',
      'notifications',
      'replays',
      'webhooks',
      'xapi',
    ])
    const notifications = before.find((q) => q.queue === 'notifications')
    expect(notifications?.messages).toBeGreaterThanOrEqual(1)
    expect(notifications?.dead_letter_queue_arn).toMatch(/:lms-notifications-dlq$/)

    // Act: redrive
    const redriven = await lms('dlq', 'redrive', '--queue', 'notifications')

    // Assess: moved, sent by the worker, gone from the dead-letter queue
    expect(redriven.code, redriven.stdout).toBe(0)
    expect(redriven.json.queue).toBe('notifications')
    expect(redriven.json.moved).toBeGreaterThanOrEqual(1)
    const mail = await until(
      async () => (await lms('mail', 'list', '--to', to)).json.data as { template: string }[],
      (data) => data.length > 0,
    )
    expect(mail.map((m) => m.template)).toEqual(['export_ready'])
    const after = (await deadLetters()).find((q) => q.queue === 'notifications')
    expect(after?.messages).toBe(0)
  })

  it('refuses an unknown queue name with a usage error naming the queues', async () => {
    const out = await lms('dlq', 'redrive', '--queue', 'orders')

    expect(out.code).not.toBe(0)
    expect(out.json.error).toMatchObject({ code: 400 })
    expect(out.json.error.message).toContain(
      '--queue takes exports, webhooks, xapi, notifications, replays, ags',
    )
  })
})
