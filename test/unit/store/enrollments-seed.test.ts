import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import { seedEnrollmentWrites } from '../../../shared/store/enrollments/enrollments-seed.ts'
import { insertEnrollmentsParams } from '../../../shared/store/enrollments/enrollments-store.ts'
import { enrollment } from '../domain/reports/fixtures.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }

describe('Bench seeding of enrollments', () => {
  const done = enrollment({
    id: '00000000-0000-4000-8000-000000000002',
    userId: 'u2',
    status: 'completed',
    completedAt: '2026-02-01T00:00:00.000Z',
  })
  const list = [
    enrollment(),
    done,
    enrollment({ id: '00000000-0000-4000-8000-000000000003', courseId: 'c2' }),
  ]

  it('puts the items and sends the updates of each course`s enrollment transaction, nothing else', () => {
    const writes = seedEnrollmentWrites(tenant, list)
    const c1 = insertEnrollmentsParams(
      tenant,
      'c1',
      [list[0], done].map((e) => ({ enrollment: e!, replaces: undefined, effects: {} })),
      { seatLimit: null, requirePublished: false, requireActiveUsers: false },
    )
    expect(writes.puts.slice(0, 4)).toEqual(c1.flatMap((s) => (s.item.Put ? [s.item.Put.Item] : [])))
    expect(writes.puts).toContainEqual(enrollmentItem(tenant, done))
    // The tenant's hour histograms are put whole, summed over every course (decision 0026).
    expect(writes.puts.slice(6).map((i) => i.sk)).toEqual([
      expect.stringMatching(/^RPTHOUR#enrolled#/),
      expect.stringMatching(/^RPTHOUR#completed#2026-02-01/),
    ])
    expect(writes.puts).toHaveLength(8)
    const transactionUpdates = c1.flatMap((s) => (s.item.Update ? [s.item.Update] : []))
    expect(writes.updates.slice(0, 4)).toEqual(
      transactionUpdates.filter((u) => !String(u.Key?.sk).startsWith('RPTHOUR#')),
    )
    // Per course: its count, the tenant's counters, its report tally and its creation days' tallies.
    expect(writes.updates.map((u) => u.Key?.sk)).toEqual([
      expect.stringMatching(/^COURSE#c1/),
      'COUNTERS',
      'RPTCOURSE#c1',
      expect.stringMatching(/^RPTCDAY#c1#/),
      expect.stringMatching(/^COURSE#c2/),
      'COUNTERS',
      'RPTCOURSE#c2',
      expect.stringMatching(/^RPTCDAY#c2#/),
    ])
  })
})
