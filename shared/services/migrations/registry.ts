/**
 * Every migration, in the order they run. An id is never reused or renamed (the state item is kept
 * under it); a new migration goes at the end.
 */
import type { Migration } from './migration.ts'
import { pendingNotificationsMigration } from './pending-notifications-migration.ts'
import { reportKeysMigration } from './report-keys-migration.ts'
import { scoresLinkedMigration } from './scores-linked-migration.ts'
import { skillSummariesMigration } from './skill-summaries-migration.ts'
import { tenantCopiesMigration } from './tenant-copies-migration.ts'

export const migrations: readonly Migration[] = [
  reportKeysMigration,
  tenantCopiesMigration,
  pendingNotificationsMigration,
  skillSummariesMigration,
  scoresLinkedMigration,
]

export const migrationIds = migrations.map((m) => m.id)
