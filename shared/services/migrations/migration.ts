/**
 * A migration (docs/decisions/0033-migrations.md): a stable id (`yyyy-mm-<name>`, never reused), what
 * it does, and one page of its work from a cursor. The runner saves the cursor it returns after
 * each page, so every page must be safe to do again: a run stopped between a page's writes and its
 * saved cursor does that page again on resume.
 */
import type { MigrationCounts } from '../../domain/migrations/migration-state.ts'

export interface PageOptions {
  /** Items a page reads at most (a Scan's Limit; tenants for a per-tenant migration). */
  readonly pageSize: number
  /** Only this tenant's items (a trial on one tenant, and tests beside other tenants); all when unset. */
  readonly tenantId?: string
}

export interface PageDone {
  readonly counts: MigrationCounts
  /** Where the next page starts; undefined when this was the last. */
  readonly next: string | undefined
}

export interface Migration {
  readonly id: string
  readonly description: string
  readonly page: (cursor: string | undefined, options: PageOptions) => Promise<PageDone>
}
