/**
 * Bulk-loads enrollments into a tenant for benchmarks: the items are exactly those of the
 * enrollment transaction (insertEnrollmentsParams: pair guard, enrollment with its index and
 * report keys, the course's count and seats, the tenant's counters, the course's report tally),
 * but the puts go out in parallel BatchWriteItem calls and each course's updates once, instead of
 * one transaction per 19 rows. For an EMPTY set of (user, course) pairs only: no condition holds
 * (an existing pair or enrollment is overwritten), no user is checked, no event is written, and
 * each enrollment is written in its final state (as if its later changes had been saved).
 */
import type { Enrollment } from '../../domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { mapLimit } from '../../concurrency.ts'
import { batchPut, updateItem, type Item, type TransactItem } from '../core/db.ts'
import { insertEnrollmentsParams } from './enrollments-store.ts'
import { isRangeHoursKey, seedRangeHistogramItems } from '../reports/range-histogram-items.ts'

export interface SeedWrites {
  /** Items put without condition, in BatchWriteItem calls of 25. */
  readonly puts: Item[]
  /** Updates (ADD) sent one by one, with the condition the transaction gives them. */
  readonly updates: NonNullable<TransactItem['Update']>[]
}

/** The writes of `enrollments`, taken from the transaction of each course's rows. */
export function seedEnrollmentWrites(tenant: TenantContext, enrollments: readonly Enrollment[]): SeedWrites {
  const byCourse = new Map<string, Enrollment[]>()
  for (const e of enrollments) byCourse.set(e.courseId, [...(byCourse.get(e.courseId) ?? []), e])
  const puts: Item[] = []
  const updates: NonNullable<TransactItem['Update']>[] = []
  for (const [courseId, rows] of byCourse) {
    const steps = insertEnrollmentsParams(
      tenant,
      courseId,
      rows.map((enrollment) => ({ enrollment, replaces: undefined, effects: {} })),
      { seatLimit: null, requirePublished: false, requireActiveUsers: false },
    )
    for (const { item } of steps) {
      if (item.Put) puts.push(item.Put.Item as Item)
      else if (item.Update && !isRangeHoursKey(item.Update.Key?.sk)) updates.push(item.Update)
    }
  }
  // The tenant's hour histograms span every course: written whole rather than one ADD per course.
  puts.push(...seedRangeHistogramItems(tenant, enrollments))
  return { puts, updates }
}

export async function seedEnrollments(
  tenant: TenantContext,
  enrollments: readonly Enrollment[],
  concurrency = 8,
): Promise<SeedWrites> {
  const writes = seedEnrollmentWrites(tenant, enrollments)
  await batchPut(writes.puts, concurrency)
  // ADDs commute: in parallel (the day tallies make one update per course and creation day).
  await mapLimit(writes.updates, concurrency, (u) => updateItem(u))
  return writes
}
