/** What the migration runner records of a migration (docs/decisions/0033-migrations.md). */

/** `pending`: never claimed; `running`: claimed and not finished (stopped runs included); `done`. */
export type MigrationStatus = 'pending' | 'running' | 'done'

export interface MigrationCounts {
  /** Items (or tenants) read. */
  readonly scanned: number
  /** Items written. */
  readonly changed: number
  /** Items left alone on purpose (a shape the migration does not handle; logged by key). */
  readonly skipped: number
}

export const noCounts: MigrationCounts = { scanned: 0, changed: 0, skipped: 0 }

export const addCounts = (a: MigrationCounts, b: MigrationCounts): MigrationCounts => ({
  scanned: a.scanned + b.scanned,
  changed: a.changed + b.changed,
  skipped: a.skipped + b.skipped,
})

export interface MigrationState {
  readonly id: string
  /** Set for a run scoped to one tenant's items; null for the whole table. */
  readonly tenantId: string | null
  readonly status: Exclude<MigrationStatus, 'pending'>
  /** Where the next page starts (opaque: the store's encoding of the read's cursor). */
  readonly cursor: string | null
  readonly counts: MigrationCounts
  readonly pages: number
  readonly startedAt: string
  readonly finishedAt: string | null
  readonly updatedAt: string
  /** The run lease: who holds it until when (epoch ms); null when no runner holds it. */
  readonly lease: { readonly owner: string; readonly until: number } | null
}
