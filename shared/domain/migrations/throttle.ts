/**
 * The migration runner's rate limit: capacity budgets per second, read and write apart (a table in
 * provisioned mode has one of each; in on-demand mode they bound what the backfill costs per
 * second and how much of the table's throughput it takes from live traffic). A page that consumed
 * C units should have taken at least C / budget seconds: the runner waits out the difference
 * before the next page, so over the run the average stays within the budget whatever the page size.
 */

export interface Consumed {
  readonly rcu: number
  readonly wcu: number
}

/** Units per second; null: no limit of that kind. */
export interface CapacityBudget {
  readonly rcuPerSecond: number | null
  readonly wcuPerSecond: number | null
}

export const unlimited: CapacityBudget = { rcuPerSecond: null, wcuPerSecond: null }

const dueMs = (units: number, perSecond: number | null): number =>
  perSecond === null || perSecond <= 0 || !Number.isFinite(units) || units <= 0
    ? 0
    : (units / perSecond) * 1000

/**
 * Milliseconds to wait after a page that consumed `consumed` in `elapsedMs`, so that the page and
 * the wait together keep within both budgets (0 when the page itself already took long enough).
 */
export function throttleDelayMs(consumed: Consumed, budget: CapacityBudget, elapsedMs: number): number {
  const due = Math.max(dueMs(consumed.rcu, budget.rcuPerSecond), dueMs(consumed.wcu, budget.wcuPerSecond))
  return Math.max(0, Math.ceil(due - Math.max(0, elapsedMs)))
}
