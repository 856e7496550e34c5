import { QueryCommand } from '@aws-sdk/lib-dynamodb'
import { afterAll, describe, expect, it } from 'vitest'
import { outboxPut } from '../../../shared/store/outbox/outbox-items.ts'
import { listPending, relayParams, toOutboxEntry } from '../../../shared/store/outbox/outbox-store.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { rendered } from '../../helpers/readable-expression.ts'
import { mockDocuments } from '../../helpers/mock-documents.ts'

const tenant = { id: 't1', plan: 'growth' } as const
const event = {
  id: 'ev1',
  event: 'user.created',
  createdAt: '2026-03-01T10:00:00.000Z',
  data: { userId: 'u1' },
} as const

describe('Outbox relay params', () => {
  it('reads the events and notifications still pending before a time from one sparse index, oldest first', () => {
    // Act
    const p = relayParams.pending('2026-03-01T10:00:00.000Z', 100)

    // Assess
    expect(p.IndexName).toBe('gsi1')
    expect(p.Limit).toBe(100)
    expect(rendered(p.KeyConditionExpression, p)).toBe(
      '(gsi1pk = "OUTBOX#PENDING") AND (gsi1sk < "2026-03-01T10:00:00.000Z")',
    )
  })

  it('takes a relayed event out of the pending index, only while it is pending, and keeps it 30 days from then', () => {
    // Act
    const key = { pk: 'T#t1', sk: `OUTBOX#${event.createdAt}#ev1` }
    const p = relayParams.markRelayed(key, '2026-03-01T10:01:00.000Z')
    const fannedOut = relayParams.markRelayed(key, '2026-03-01T10:01:00.000Z', 2)
    const expiry = Date.parse('2026-03-01T10:01:00.000Z') / 1000 + 30 * 86_400

    // Assess
    expect(p.Key).toEqual(key)
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET relayed_at = "2026-03-01T10:01:00.000Z", ttl = ${expiry} REMOVE gsi1pk, gsi1sk`,
    )
    expect(rendered(fannedOut.UpdateExpression, fannedOut)).toBe(
      `SET relayed_at = "2026-03-01T10:01:00.000Z", relayed_deliveries = 2, ttl = ${expiry} REMOVE gsi1pk, gsi1sk`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_exists(gsi1pk)')
  })

  it('keeps an event 30 days from when it was written, however far back its time is', () => {
    // Act: the event's time is months before the write.
    const before = Math.floor(Date.now() / 1000)
    const ttl = outboxPut(tenant, event).Put?.Item?.ttl

    // Assess
    expect(ttl).toBeGreaterThanOrEqual(before + 30 * 86_400)
    expect(ttl).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 30 * 86_400)
  })

  it('keeps the local relay checkpoint per shard', () => {
    expect(relayParams.checkpoint('shard-1')).toEqual({
      Key: { pk: 'RELAY#CHECKPOINT', sk: 'shard-1' },
      ConsistentRead: true,
    })
    expect(relayParams.putCheckpoint('shard-1', '42').Item).toEqual({
      pk: 'RELAY#CHECKPOINT',
      sk: 'shard-1',
      type: 'relay_checkpoint',
      sequence_number: '42',
    })
  })
})

describe('Function: toOutboxEntry', () => {
  it('reads the event the outbox writer wrote, with its wall-clock write time', () => {
    // Prepare
    const item = outboxPut(tenant, event).Put?.Item ?? {}

    // Act
    const pending = toOutboxEntry(item)

    // Assess
    expect(pending).toEqual({
      kind: 'event',
      key: { pk: 'T#t1', sk: `OUTBOX#${event.createdAt}#ev1` },
      tenantId: 't1',
      event,
      recordedAt: item.recorded_at,
      scoresLinked: null,
    })
    const hinted = outboxPut(tenant, event, { scoresLinked: false }).Put?.Item ?? {}
    expect(toOutboxEntry(hinted)).toMatchObject({ scoresLinked: false, event })
  })

  it('falls back to the event time for items from before recorded_at, and refuses an unknown event type', () => {
    // Prepare
    const older = { ...outboxPut(tenant, event).Put?.Item }
    delete older.recorded_at

    // Act
    const pending = toOutboxEntry(older)
    const unknown = (() => {
      try {
        return toOutboxEntry({ ...older, event: 'user.vanished' })
      } catch (err) {
        return err
      }
    })()

    // Assess
    expect(pending).toMatchObject({ recordedAt: event.createdAt })
    expect(unknown).toBeInstanceOf(MalformedItem)
    expect((unknown as Error).message).toMatch(/^Malformed outbox_item item \(T#t1 \/ OUTBOX#/)
    expect((unknown as Error).message).not.toContain('user.vanished')
  })
})

describe('Function: listPending', () => {
  const ddb = mockDocuments()
  afterAll(() => ddb.restore())

  it('hands an item it cannot read back as its error, next to the items it can', async () => {
    // Prepare
    const good = outboxPut(tenant, event).Put?.Item ?? {}
    const bad = { ...outboxPut(tenant, { ...event, id: 'ev2' }).Put?.Item, data: 'not a map' }
    ddb.on(QueryCommand).resolves({ Items: [bad, good] })

    // Act
    const { readable, unreadable } = await listPending('2026-03-02T00:00:00.000Z', 100)

    // Assess
    expect(readable.map((p) => p.key.sk)).toEqual([`OUTBOX#${event.createdAt}#ev1`])
    expect(unreadable).toHaveLength(1)
    expect(unreadable[0]).toBeInstanceOf(MalformedItem)
    expect(unreadable[0]?.message).toMatch(/^Malformed outbox_item item \(T#t1 \/ OUTBOX#.*#ev2\): data: /)
  })
})
