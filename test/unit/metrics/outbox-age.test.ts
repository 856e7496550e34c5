/**
 * The outbox's lag as the sweeper reports it (functions/workers/outbox-sweeper): from the read it
 * relays, one EMF line with the age of the oldest pending event, read from when it was saved; nothing when
 * no event is pending. Fault injection: the stream relay of a running stack would take the pending
 * event away before a sweep could see it, so the table is mocked with one that waits.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { mockClient } from 'aws-sdk-client-mock'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { documents } from '../../../shared/aws/dynamodb.ts'
import { handler as sweeper } from '../../../functions/workers/outbox-sweeper/handler.ts'
import { captureStdout } from '../../helpers/stdout-lines.ts'

vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return { ...actual, config: { ...actual.config, logLevel: 'info', metricsNamespace: 'lms/test' } }
})

const table = mockClient(documents)
const { jsonLines } = captureStdout()
afterEach(() => {
  table.reset()
})

const metricLines = () => jsonLines().filter((line) => '_aws' in line)

/** An outbox event as the store writes it, saved `savedMinutesAgo` minutes ago. */
function pendingEvent(savedMinutesAgo: number) {
  const saved = new Date(Date.now() - savedMinutesAgo * 60_000).toISOString()
  return {
    pk: 'TENANT#t1',
    sk: `OUTBOX#${saved}#e1`,
    type: 'event',
    tenant_id: 't1',
    event_id: 'e1',
    event: 'enrollment.created',
    // Backdated with --at: the age is read from when it was saved, not from this.
    created_at: '2020-01-01T00:00:00.000Z',
    recorded_at: saved,
    data: {},
  }
}

describe('Handler: outbox sweeper, the outbox age metric', () => {
  it('writes the age of the oldest pending event in seconds, then relays it and counts the enrollment', async () => {
    // Prepare: one event waiting 12 minutes (the pending index, read once), no tenant left
    table
      .on(QueryCommand)
      .resolvesOnce({ Items: [pendingEvent(12)] })
      .resolves({ Items: [] })
    table.on(GetCommand).resolves({})
    table.on(UpdateCommand).resolves({})

    // Act
    const result = await sweeper()

    // Assess
    expect(result.relayed).toBe(1)
    const [age, relayed] = metricLines()
    expect(age).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          { Namespace: 'lms/test', Metrics: [{ Name: 'OutboxOldestPendingAge', Unit: 'Seconds' }] },
        ],
      },
    })
    expect(age?.OutboxOldestPendingAge).toBeGreaterThanOrEqual(12 * 60)
    expect(age?.OutboxOldestPendingAge).toBeLessThan(13 * 60)
    expect(relayed).toMatchObject({ EnrollmentsCreated: 1 })
  })

  it('writes no age when nothing is pending', async () => {
    table.on(QueryCommand).resolves({ Items: [] })

    await sweeper()

    expect(metricLines()).toEqual([])
  })
})
