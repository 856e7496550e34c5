/**
 * A user's latest activity (decision 0024): the latest of their last sign-in and every start and
 * completion of their enrollments, the facts that make a user active in a period. A period that
 * ends at or after every user's latest holds exactly the users whose latest is at or after its
 * start, so a histogram of users by the day of their latest counts them without reading them.
 * Instants are milliseconds, as the report's rules compare them.
 */

/** The activity instants of an enrollment (its start and completion) or a user (last sign-in). */
export const instantsOf = (...ats: readonly (string | null)[]): number[] =>
  ats.flatMap((at) => {
    if (at === null) return []
    const ms = Date.parse(at)
    return Number.isFinite(ms) ? [ms] : []
  })

/** What a change of instants does to a user's latest. */
export type LatestDecision =
  | { readonly kind: 'keep' }
  | { readonly kind: 'move'; readonly to: number }
  /** An instant that may have been the latest is gone: the user's instants must be read again. */
  | { readonly kind: 'recompute' }

/** Instants in `a` not in `b`, each occurrence once (a multiset difference). */
export function instantsNotIn(a: readonly number[], b: readonly number[]): number[] {
  const left = [...b]
  return a.filter((x) => {
    const i = left.indexOf(x)
    if (i < 0) return true
    left.splice(i, 1)
    return false
  })
}

/** The latest after replacing the instants `before` with `after`, given the stored latest. */
export function decideLatest(
  latest: number | null,
  before: readonly number[],
  after: readonly number[],
): LatestDecision {
  const removed = instantsNotIn(before, after)
  const added = instantsNotIn(after, before)
  if (latest !== null && removed.some((r) => r >= latest)) return { kind: 'recompute' }
  const top = Math.max(...added)
  return added.length > 0 && (latest === null || top > latest) ? { kind: 'move', to: top } : { kind: 'keep' }
}

/** The latest of a set of instants, or null when there is none. */
export const latestOf = (instants: readonly number[]): number | null =>
  instants.length === 0 ? null : Math.max(...instants)

const DAY_MS = 86_400_000

/** The UTC day of an instant, `yyyy-mm-dd`. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** The first millisecond after the UTC day of `ms`. */
export const nextDayStart = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS

/**
 * Users whose latest is at or after `start`: the histogram's days after the start's day, plus
 * those of the start's own day at or after it (counted exactly by the caller).
 */
export function activeSince(
  days: Readonly<Record<string, number>>,
  start: number,
  startDayFromStart: number,
): number {
  const startDay = dayOf(start)
  let total = startDayFromStart
  for (const [day, n] of Object.entries(days)) if (day > startDay) total += n
  return total
}
