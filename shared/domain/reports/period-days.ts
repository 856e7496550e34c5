/**
 * A course-performance period (`period_start`..`period_end`, both included, by enrollment
 * creation) split for the per-course daily tallies (decision 0023): the whole UTC days inside it
 * are summed from the tallies; a day the period covers only in part is an edge, read exactly.
 */
import type { Enrollment, EnrollmentWrite } from '../enrollments/enrollment.ts'
import { addTallies, emptyTally, tallyOf, type CourseTally } from './course-performance.ts'

const DAY_MS = 86_400_000

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS

export interface PeriodParts {
  /** The whole days (`yyyy-mm-dd`, both included), or null when there is none. */
  readonly days: { readonly first: string; readonly last: string } | null
  /** Parts of a day, both ends included (ISO timestamps, millisecond precision). */
  readonly edges: readonly { readonly from: string; readonly to: string }[]
}

/** The whole days and edges of a period; a missing end is open (every day on that side). */
export function periodParts(start?: string, end?: string): PeriodParts {
  const s = start === undefined ? undefined : Date.parse(start)
  const e = end === undefined ? undefined : Date.parse(end)
  if (s !== undefined && e !== undefined && s > e) return { days: null, edges: [] }
  const iso = (ms: number) => new Date(ms).toISOString()
  // The first whole day starts at or after s; the last whole day ends at or before e.
  const firstWhole = s === undefined ? undefined : s === startOfDay(s) ? s : startOfDay(s) + DAY_MS
  const lastWholeEnd = e === undefined ? undefined : e === startOfDay(e) + DAY_MS - 1 ? e + 1 : startOfDay(e)
  if (firstWhole !== undefined && lastWholeEnd !== undefined && firstWhole >= lastWholeEnd) {
    // No whole day: the period lies within one day or across the boundary of two.
    if (s === undefined || e === undefined) return { days: null, edges: [] }
    const mid = startOfDay(e)
    return {
      days: null,
      edges:
        mid > s && mid <= e
          ? [
              { from: iso(s), to: iso(mid - 1) },
              { from: iso(mid), to: iso(e) },
            ]
          : [{ from: iso(s), to: iso(e) }],
    }
  }
  const edges: { from: string; to: string }[] = []
  if (s !== undefined && firstWhole !== undefined && s < firstWhole)
    edges.push({ from: iso(s), to: iso(firstWhole - 1) })
  if (e !== undefined && lastWholeEnd !== undefined && e >= lastWholeEnd)
    edges.push({ from: iso(lastWholeEnd), to: iso(e) })
  return {
    days: {
      first: firstWhole === undefined ? '0000-00-00' : dayOf(firstWhole),
      last: lastWholeEnd === undefined ? '9999-99-99' : dayOf(lastWholeEnd - 1),
    },
    edges,
  }
}

/** How writes of one course move its day tallies: each state's share on its UTC creation day. */
export function dayTallyDeltas(writes: readonly EnrollmentWrite[]): Map<string, CourseTally> {
  const byDay = new Map<string, CourseTally>()
  const move = (e: Enrollment, sign: 1 | -1) => {
    const day = dayOf(Date.parse(e.createdAt))
    byDay.set(day, addTallies(byDay.get(day) ?? emptyTally, tallyOf(e), sign))
  }
  for (const w of writes) {
    if (w.before) move(w.before, -1)
    move(w.after, 1)
  }
  return byDay
}
