/**
 * `lms migrate status` and `lms migrate run [--id ID]`: the migration runner (docs/decisions/0033).
 * `run` takes the registry's pending migrations in order (or the one named), each from its saved
 * cursor; `--tenant S` runs them over one tenant's items only, under a state of their own; `--max-pages N` stops after N pages (run again to resume); the capacity budgets default
 * to `LMS_MIGRATION_MAX_RCU_PER_SECOND` / `LMS_MIGRATION_MAX_WCU_PER_SECOND` (0: no limit).
 */
import { config } from '../shared/config.ts'
import {
  migrationStatus,
  runMigrations,
  type MigrationRun,
} from '../shared/services/migrations/migration-runner.ts'
import { UsageError } from './args.ts'
import { command, tenantOf, type Command, type Flags } from './flags.ts'

/** `--tenant S`: the run (or status) of that tenant's items only; the whole table otherwise. */
async function tenantIdOf(flags: Flags): Promise<string | undefined> {
  return flags.has('tenant') ? (await tenantOf(flags)).id : undefined
}

function positiveInt(flags: Flags, name: string): number | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--${name} takes a whole number of at least 1`)
  return Number(raw)
}

/** A budget flag, else the configured one; 0 (either way) is no limit. */
function budgetOf(flags: Flags, name: string, configured: number): number | null {
  const raw = flags.get(name)
  if (raw !== undefined && !/^\d+(\.\d+)?$/.test(raw))
    throw new UsageError(`--${name} takes a non-negative number`)
  const n = raw === undefined ? configured : Number(raw)
  return n > 0 ? n : null
}

const runView = (r: MigrationRun) => ({
  id: r.id,
  outcome: r.outcome,
  pages: r.pages,
  scanned: r.counts.scanned,
  changed: r.counts.changed,
  skipped: r.counts.skipped,
  consumed_rcu: r.consumed.rcu,
  consumed_wcu: r.consumed.wcu,
  elapsed_ms: r.elapsedMs,
  throttled_ms: r.throttledMs,
})

export const migrateCommands: Record<string, Command> = {
  'migrate status': command('[--tenant S]', 'each migration, its status, counts and cursor', async (f) => {
    const tenantId = await tenantIdOf(f)
    return {
      data: (await migrationStatus(tenantId === undefined ? {} : { tenantId })).map((m) => ({
        id: m.id,
        description: m.description,
        status: m.status,
        scanned: m.counts.scanned,
        changed: m.counts.changed,
        skipped: m.counts.skipped,
        pages: m.pages,
        has_cursor: m.hasCursor,
        started_at: m.startedAt,
        finished_at: m.finishedAt,
        updated_at: m.updatedAt,
        leased_until: m.leasedUntil,
      })),
    }
  }),
  'migrate run': command(
    '[--id ID] [--tenant S] [--page-size N] [--max-pages N] [--max-rcu-per-second N] [--max-wcu-per-second N]',
    'run the pending migrations in order (or one), each from its saved cursor',
    async (f) => {
      const id = f.get('id')
      if (id === 'true' || id === '')
        throw new UsageError('--id takes a migration id (lms migrate status lists them)')
      const pageSize = positiveInt(f, 'page-size')
      const maxPages = positiveInt(f, 'max-pages')
      const tenantId = await tenantIdOf(f)
      const summary = await runMigrations({
        ...(tenantId === undefined ? {} : { tenantId }),
        ...(id === undefined ? {} : { only: id }),
        ...(pageSize === undefined ? {} : { pageSize }),
        ...(maxPages === undefined ? {} : { maxPages }),
        budget: {
          rcuPerSecond: budgetOf(f, 'max-rcu-per-second', config.migrationMaxRcuPerSecond),
          wcuPerSecond: budgetOf(f, 'max-wcu-per-second', config.migrationMaxWcuPerSecond),
        },
      })
      return { migrations: summary.migrations.map(runView), more: summary.more }
    },
  ),
}
