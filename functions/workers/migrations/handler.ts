/**
 * The migrations' Lambda (docs/operations.md "Running migrations"): the operator invokes it
 * (`aws lambda invoke`) with `{}` or `{"id", "tenant_id", "page_size", "max_pages"}`; it runs the
 * pending migrations as `lms migrate run` does, stops between pages once less than two minutes of
 * its time are left (the cursor is saved after every page), and answers whether more remains:
 * invoke it again until `more` is false. The capacity budgets are the function's environment.
 */
import type { Context } from 'aws-lambda'
import * as v from 'valibot'
import { config } from '../../../shared/config.ts'
import { errorFields, log } from '../../../shared/log.ts'
import { runMigrations, type RunSummary } from '../../../shared/services/migrations/migration-runner.ts'

/** A page and its save take seconds; this leaves room for a slow one and the answer. */
const STOP_WHEN_LEFT_MS = 2 * 60_000

const positive = v.pipe(v.number(), v.integer(), v.minValue(1))
const MigrationEvent = v.strictObject({
  id: v.optional(v.pipe(v.string(), v.minLength(1))),
  tenant_id: v.optional(v.pipe(v.string(), v.minLength(1))),
  page_size: v.optional(positive),
  max_pages: v.optional(positive),
})

const budget = {
  rcuPerSecond: config.migrationMaxRcuPerSecond > 0 ? config.migrationMaxRcuPerSecond : null,
  wcuPerSecond: config.migrationMaxWcuPerSecond > 0 ? config.migrationMaxWcuPerSecond : null,
}

export const handler = async (
  event: unknown,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<RunSummary> => {
  const parsed = v.safeParse(MigrationEvent, event ?? {})
  if (!parsed.success) {
    log('error', 'migration event refused', { issue: parsed.issues[0]?.message })
    throw new Error('The migration event takes only id, tenant_id, page_size and max_pages')
  }
  const e = parsed.output
  try {
    const summary = await runMigrations({
      ...(e.id === undefined ? {} : { only: e.id }),
      ...(e.tenant_id === undefined ? {} : { tenantId: e.tenant_id }),
      ...(e.page_size === undefined ? {} : { pageSize: e.page_size }),
      ...(e.max_pages === undefined ? {} : { maxPages: e.max_pages }),
      budget,
      shouldStop: () => context.getRemainingTimeInMillis() < STOP_WHEN_LEFT_MS,
    })
    log('info', 'migrations ran', {
      more: summary.more,
      migrations: summary.migrations.map((m) => ({
        id: m.id,
        outcome: m.outcome,
        pages: m.pages,
        ...m.counts,
      })),
    })
    return summary
  } catch (err) {
    log('error', 'migrations failed', errorFields(err))
    throw err
  }
}
