/**
 * A migration that pages through the table (a Scan with the migration's filter) and changes each
 * item the filter keeps on its own, a few at a time: what the report keys, tenant copies and
 * pending notifications migrations share.
 */
import { mapLimit } from '../../concurrency.ts'
import type { Item } from '../../store/core/db.ts'
import { cond, type Condition } from '../../store/core/expression.ts'
import { scanTable } from '../../store/migrations/table-scan.ts'
import { log } from '../../log.ts'
import type { Migration } from './migration.ts'

/** What became of one item. */
export type ItemOutcome = 'changed' | 'unchanged' | 'skipped'

/** Items changed at once within a page: each is one transaction, often on shared aggregates. */
const IN_FLIGHT = 4

export interface ScanMigration {
  readonly id: string
  readonly description: string
  readonly filter: Condition
  /** The filter's share that keeps one tenant's items only (a run scoped with `tenantId`). */
  readonly ofTenant: (tenantId: string) => Condition
  readonly apply: (item: Item) => Promise<ItemOutcome>
}

export function scanMigration({ id, description, filter, ofTenant, apply }: ScanMigration): Migration {
  return {
    id,
    description,
    page: async (cursor, { pageSize, tenantId }) => {
      const kept = tenantId === undefined ? filter : cond.and(filter, ofTenant(tenantId))
      const page = await scanTable(kept, cursor, pageSize)
      const outcomes = await mapLimit(page.items, IN_FLIGHT, async (item) => {
        const outcome = await apply(item)
        // The key only: items hold personal data.
        if (outcome === 'skipped')
          log('info', 'migration skipped an item', { migration: id, pk: item.pk, sk: item.sk })
        return outcome
      })
      const count = (o: ItemOutcome) => outcomes.filter((x) => x === o).length
      return {
        counts: { scanned: page.scanned, changed: count('changed'), skipped: count('skipped') },
        next: page.next,
      }
    },
  }
}
