/**
 * The events API's `meta.total` (decision 0053): counted from per-day, hour and minute counters
 * that the relay moves when it marks an event relayed, plus the events of the two partial minutes
 * at the range's edges. Exact for any filter, and an event relayed twice is counted once.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { newEvent, type DomainEvent } from '../../shared/domain/events.ts'
import { outboxEntryOf, relayAll } from '../../shared/services/outbox/relay-service.ts'
import { queryAll } from '../../shared/store/core/db.ts'
import { appendEvent, outboxQueryParams } from '../../shared/store/outbox/outbox-store.ts'
import { untilAllRelayed } from '../helpers/outbox.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const DAY = 24 * 3600 * 1000
/** Midnight UTC three days ago: every event below is inside the 30-day window and in the past. */
const D0 = Math.floor((Date.now() - 3 * DAY) / DAY) * DAY
const at = (ms: number) => new Date(D0 + ms).toISOString()
const h = (n: number) => n * 3600 * 1000
const m = (n: number) => n * 60 * 1000
const s = (n: number) => n * 1000

const published = (ms: number) =>
  newEvent('course.published', { courseId: randomUUID(), title: 'Published' }, at(ms))
const archived = (ms: number) =>
  newEvent('course.archived', { courseId: randomUUID(), title: 'Archived' }, at(ms))

/** Events at known past times: two in one minute, others in the same hour, day, and later days. */
const events: DomainEvent[] = [
  published(h(1) + m(5) + s(10)),
  archived(h(1) + m(5) + s(40)),
  published(h(1) + m(30)),
  archived(h(5)),
  published(DAY + h(2)),
  published(2 * DAY + s(30)),
  archived(2 * DAY + s(30)),
]

async function listed(t: TestTenant, query: string): Promise<{ ids: string[]; total: number }> {
  const r = await t.api.get(`/api/v1/events?per_page=100&${query}`)
  expect(r.status, query).toBe(200)
  return { ids: (r.body.data as { id: string }[]).map((e) => e.id), total: r.body.meta.total as number }
}

/** The ids of our events strictly inside the range, of the given types. */
function expected(types: readonly string[], after = '', before = '~'): string[] {
  return events
    .filter((e) => types.includes(e.event) && e.createdAt > after && e.createdAt < before)
    .map((e) => e.id)
}

async function tenantWithEvents(): Promise<TestTenant> {
  const t = await newTenant()
  for (const e of events) await appendEvent(t.tenant, e)
  // An internal event is neither listed nor counted.
  await appendEvent(t.tenant, newEvent('module.completed', { userId: randomUUID() }, at(h(1) + m(5) + s(20))))
  await untilAllRelayed(t.tenant)
  return t
}

describe('Route: GET /api/v1/events, meta.total', () => {
  it('is exact with no filter, one type, two types, and ranges cut inside a minute, an hour and a day', async () => {
    // Prepare
    const t = await tenantWithEvents()
    const both = ['course.published', 'course.archived']
    const cases: [string, string[]][] = [
      ['type=course.published', expected(['course.published'])],
      ['type=course.published,course.archived', expected(both)],
      // Inside a minute (between its two events) and inside an hour.
      [
        `created_after=${at(h(1) + m(5) + s(20))}&created_before=${at(h(1) + m(45))}`,
        expected(both, at(h(1) + m(5) + s(20)), at(h(1) + m(45))),
      ],
      // Inside a day, up to inside a minute two days later (before its two events).
      [
        `created_after=${at(h(3))}&created_before=${at(2 * DAY + s(20))}`,
        expected(both, at(h(3)), at(2 * DAY + s(20))),
      ],
      // An event's own instant is excluded (bounds are exclusive), whole minutes and hours before it counted.
      [
        `type=course.published&created_after=${at(h(1) + m(5) + s(10))}&created_before=${at(2 * DAY + s(30))}`,
        expected(['course.published'], at(h(1) + m(5) + s(10)), at(2 * DAY + s(30))),
      ],
      [`type=course.archived&created_before=${at(3 * DAY + h(1))}`, expected(['course.archived'])],
    ]

    // Act
    const all = await listed(t, '')
    const results = await Promise.all(cases.map(([query]) => listed(t, query)))

    // Assess
    expect(all.total).toBe(all.ids.length)
    expect(all.ids).toEqual(expect.arrayContaining(expected(both)))
    results.forEach((r, i) => {
      const [query, ids] = cases[i] as [string, string[]]
      expect(r.ids.sort(), query).toEqual([...ids].sort())
      expect(r.total, query).toBe(ids.length)
    })
  })

  it('counts an event once when the stream and the sweeper both relay it', async () => {
    // Prepare: every event relayed by the stream already.
    const t = await tenantWithEvents()
    const before = await listed(t, 'type=course.published')
    const items = await queryAll(outboxQueryParams(t.tenant))

    // Act: the sweeper relays them all again, then one more event is written and relayed.
    expect(await relayAll(items.map(outboxEntryOf), 2)).toEqual([])
    const more = published(h(1) + m(5) + s(50))
    await appendEvent(t.tenant, more)
    await untilAllRelayed(t.tenant)

    // Assess
    const after = await listed(t, 'type=course.published')
    expect(before.total).toBe(expected(['course.published']).length)
    expect(after.total).toBe(before.total + 1)
    expect(after.ids).toContain(more.id)
    const whole = await listed(t, '')
    expect(whole.total).toBe(whole.ids.length)
  })
})
