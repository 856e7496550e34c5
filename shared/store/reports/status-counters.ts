/**
 * The tenant's enrollment counters on its COUNTERS item (`enrollments_total`, `completions_total`,
 * `enrollments_status_<status>`: what toEnrollmentCounters reads), the reports' totals without a
 * filter and the compliance totals' assignments.
 */
import type { Projection } from './projection.ts'
import { enrollmentWrites } from './projection.ts'

export const statusCountersProjection: Projection = {
  name: 'status counters',
  movesFor: (_tenant, change) => {
    const d: Record<string, number> = {}
    const add = (k: string, n: number) => (d[k] = (d[k] ?? 0) + n)
    for (const { before, after } of enrollmentWrites(change)) {
      if (!before) add('enrollments_total', 1)
      if (before?.status !== after.status) {
        if (before) add(`enrollments_status_${before.status}`, -1)
        add(`enrollments_status_${after.status}`, 1)
      }
      if (!before?.completedAt && after.completedAt) add('completions_total', 1)
    }
    return { counters: d }
  },
}
