/**
 * The migration runner (docs/decisions/0033-migrations.md): runs the registry's migrations in order
 * (or one), each from its saved cursor, page by page. Before a migration it claims the run lease
 * (refused while another runner holds it, or when it is done); after each page it saves the cursor
 * and the counts under that lease, then waits as long as the capacity budget asks. It stops between
 * pages when told to (a page limit, or the Lambda's time running out) and lets the lease go, so the
 * next run resumes at the saved page.
 */
import { randomUUID } from 'node:crypto'
import { ConflictError, ValidationError } from '../../domain/errors.ts'
import {
  addCounts,
  noCounts,
  type MigrationCounts,
  type MigrationStatus,
} from '../../domain/migrations/migration-state.ts'
import {
  throttleDelayMs,
  unlimited,
  type CapacityBudget,
  type Consumed,
} from '../../domain/migrations/throttle.ts'
import { log } from '../../log.ts'
import { currentDbMetrics, runWithDbMetrics } from '../../store/core/metrics.ts'
import {
  claimMigration,
  getMigrationStates,
  releaseMigration,
  saveMigrationPage,
} from '../../store/migrations/migration-state-store.ts'
import type { Migration, PageOptions } from './migration.ts'
import { migrations as registry } from './registry.ts'

/** A lease outlives a page and the wait after it by this much; a crashed run's lapses after it. */
const LEASE_MS = 2 * 60_000

export interface RunOptions {
  /** Run only this migration (done: nothing to do). */
  readonly only?: string
  /** Only this tenant's items, under a state of their own (the whole table's is left as it is). */
  readonly tenantId?: string
  /** Items a page reads at most. */
  readonly pageSize?: number
  /** Stop after this many pages in all (then `more` says whether anything is left). */
  readonly maxPages?: number
  readonly budget?: CapacityBudget
  /** Asked before each page: true stops the run there (the Lambda's remaining time). */
  readonly shouldStop?: () => boolean
  readonly migrations?: readonly Migration[]
  readonly sleep?: (ms: number) => Promise<void>
}

export type RunOutcome = 'done' | 'already_done' | 'stopped' | 'not_started'

export interface MigrationRun {
  readonly id: string
  readonly outcome: RunOutcome
  /** Pages done by this run. */
  readonly pages: number
  /** What this run counted (the state holds the totals of every run). */
  readonly counts: MigrationCounts
  readonly consumed: Consumed
  readonly elapsedMs: number
  /** Time spent waiting for the capacity budget. */
  readonly throttledMs: number
}

export interface RunSummary {
  readonly migrations: readonly MigrationRun[]
  /** Whether a migration of this run is left unfinished (run again to resume). */
  readonly more: boolean
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const DEFAULT_PAGE_SIZE = 100

const notRun = (id: string, outcome: RunOutcome): MigrationRun => ({
  id,
  outcome,
  pages: 0,
  counts: noCounts,
  consumed: { rcu: 0, wcu: 0 },
  elapsedMs: 0,
  throttledMs: 0,
})

/** The migrations a run takes: all in order, or the one named. @throws ValidationError for an unknown id */
function selected(all: readonly Migration[], only: string | undefined): readonly Migration[] {
  if (only === undefined) return all
  const one = all.find((m) => m.id === only)
  if (!one) throw new ValidationError('id', `No migration ${only}: ${all.map((m) => m.id).join(', ')}`)
  return [one]
}

/** One page, with the capacity its DynamoDB calls consumed (read from the call records). */
async function measuredPage(m: Migration, cursor: string | undefined, options: PageOptions) {
  // Inside an outer scope (a benchmark's), the page's calls are those recorded after this point.
  const first = currentDbMetrics()?.calls.length ?? 0
  const { metrics, done } = runWithDbMetrics(() => m.page(cursor, options))
  const result = await done
  const consumed = metrics.calls
    .slice(first)
    .reduce((c, call) => ({ rcu: c.rcu + call.rcu, wcu: c.wcu + call.wcu }), { rcu: 0, wcu: 0 })
  return { result, consumed }
}

/**
 * Runs the migrations.
 * @throws ConflictError `migration_running` when another runner holds a migration's lease
 * @throws ValidationError naming `id` for an unknown migration
 */
export async function runMigrations(options: RunOptions = {}): Promise<RunSummary> {
  const list = selected(options.migrations ?? registry, options.only)
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
  const budget = options.budget ?? unlimited
  const sleep = options.sleep ?? sleepFor
  const owner = randomUUID()
  let pagesLeft = options.maxPages ?? Number.POSITIVE_INFINITY
  const stopNow = () => pagesLeft <= 0 || (options.shouldStop?.() ?? false)
  const runs: MigrationRun[] = []

  for (const m of list) {
    if (stopNow()) {
      runs.push(notRun(m.id, 'not_started'))
      continue
    }
    const startMs = Date.now()
    const scope = {
      migrationId: m.id,
      ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    }
    const claim = await claimMigration({
      ...scope,
      owner,
      now: new Date(startMs).toISOString(),
      nowMs: startMs,
      leaseUntil: startMs + LEASE_MS,
    })
    if ('refused' in claim) {
      if (claim.refused === 'done') {
        runs.push(notRun(m.id, 'already_done'))
        continue
      }
      const until = claim.state?.lease ? new Date(claim.state.lease.until).toISOString() : 'unknown'
      throw new ConflictError(
        'migration_running',
        `Migration ${m.id} is being run by another runner (its lease runs until ${until}); run again once it has stopped`,
      )
    }
    let cursor = claim.claimed.cursor ?? undefined
    let counts = noCounts
    let consumed: Consumed = { rcu: 0, wcu: 0 }
    let pages = 0
    let throttledMs = 0
    let outcome: RunOutcome = 'stopped'
    try {
      for (;;) {
        if (stopNow()) break
        const pageStart = Date.now()
        const page = await measuredPage(m, cursor, {
          pageSize,
          ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
        })
        const elapsed = Date.now() - pageStart
        const delay = throttleDelayMs(page.consumed, budget, elapsed)
        const now = Date.now()
        await saveMigrationPage({
          ...scope,
          owner,
          now: new Date(now).toISOString(),
          cursor: page.result.next ?? null,
          counts: page.result.counts,
          leaseUntil: now + delay + LEASE_MS,
        })
        pages++
        pagesLeft--
        counts = addCounts(counts, page.result.counts)
        consumed = { rcu: consumed.rcu + page.consumed.rcu, wcu: consumed.wcu + page.consumed.wcu }
        log('info', 'migration page', {
          migration: m.id,
          ...page.result.counts,
          rcu: page.consumed.rcu,
          wcu: page.consumed.wcu,
          ms: elapsed,
          throttle_ms: delay,
        })
        cursor = page.result.next
        if (cursor === undefined) {
          outcome = 'done'
          break
        }
        // A run told to stop leaves now rather than after the wait (the next run starts later anyway).
        if (stopNow()) break
        if (delay > 0) {
          throttledMs += delay
          await sleep(delay)
        }
      }
    } finally {
      // A done migration's last save let the lease go; a stopped or failed one lets it go here.
      if (outcome !== 'done') await releaseMigration(scope, owner).catch(() => undefined)
    }
    runs.push({ id: m.id, outcome, pages, counts, consumed, elapsedMs: Date.now() - startMs, throttledMs })
  }
  return { migrations: runs, more: runs.some((r) => r.outcome === 'stopped' || r.outcome === 'not_started') }
}

export interface MigrationStatusView {
  readonly id: string
  readonly description: string
  readonly status: MigrationStatus
  readonly counts: MigrationCounts
  readonly pages: number
  /** A stopped run left a cursor: the next run resumes there. */
  readonly hasCursor: boolean
  readonly startedAt: string | null
  readonly finishedAt: string | null
  readonly updatedAt: string | null
  /** Until when a runner holds it (ISO); null when none does, or its lease has lapsed. */
  readonly leasedUntil: string | null
}

/** Every migration of the registry, in order, with what has been recorded of it. */
export async function migrationStatus({
  tenantId,
  list = registry,
  nowMs = Date.now(),
}: { tenantId?: string; list?: readonly Migration[]; nowMs?: number } = {}): Promise<MigrationStatusView[]> {
  const states = await getMigrationStates(tenantId)
  return list.map((m) => {
    const s = states.get(m.id)
    const lease = s?.lease && s.lease.until > nowMs ? s.lease : null
    return {
      id: m.id,
      description: m.description,
      status: s?.status ?? 'pending',
      counts: s?.counts ?? noCounts,
      pages: s?.pages ?? 0,
      hasCursor: s?.cursor != null,
      startedAt: s?.startedAt ?? null,
      finishedAt: s?.finishedAt ?? null,
      updatedAt: s?.updatedAt ?? null,
      leasedUntil: lease ? new Date(lease.until).toISOString() : null,
    }
  })
}
