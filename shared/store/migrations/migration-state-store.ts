/**
 * The migration runner's state (docs/decisions/0033-migrations.md): one item per migration in the
 * product's own partition, `PLATFORM#MIGRATIONS` / `MIGRATION#<id>`, holding its status, the cursor
 * of the next page, what it has counted, and the run lease. Every transition is one conditional
 * write, never a read then a write: a runner claims the lease only if nobody holds a live one and
 * the migration is not done, and saves a page only while the lease is still its own, so two
 * runners can never page through the same migration at once.
 */
import * as v from 'valibot'
import type { MigrationCounts, MigrationState } from '../../domain/migrations/migration-state.ts'
import { queryAll, updateItem, updateOrCurrent, type Item } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { writeOrRefuse } from '../core/transaction.ts'

const count = withDefault(v.number(), 0)
const StateItem = v.object({
  id: v.string(),
  tenant_id: v.optional(v.string()),
  status: v.picklist(['running', 'done']),
  cursor: v.optional(v.string()),
  scanned: count,
  changed: count,
  skipped: count,
  pages: count,
  started_at: v.string(),
  finished_at: v.optional(v.string()),
  updated_at: v.string(),
  lease_owner: v.optional(v.string()),
  lease_until: v.optional(v.number()),
})

function toState(item: Item): MigrationState {
  const i = decodeItem('migration state', StateItem, item)
  return {
    id: i.id,
    tenantId: i.tenant_id ?? null,
    status: i.status,
    cursor: i.cursor ?? null,
    counts: { scanned: i.scanned, changed: i.changed, skipped: i.skipped },
    pages: i.pages,
    startedAt: i.started_at,
    finishedAt: i.finished_at ?? null,
    updatedAt: i.updated_at,
    lease:
      i.lease_owner !== undefined && i.lease_until !== undefined
        ? { owner: i.lease_owner, until: i.lease_until }
        : null,
  }
}

export const migrationStatesParams = () => ({
  ...queryExpression({ key: cond.eq('pk', keys.migrationsPartition) }),
  ConsistentRead: true,
})

/**
 * Every migration that has ever been claimed, by id, of the whole table or of one tenant's scope
 * (one never claimed has no item: pending).
 */
export async function getMigrationStates(tenantId?: string): Promise<Map<string, MigrationState>> {
  const states = (await queryAll(migrationStatesParams())).map(toState)
  return new Map(states.filter((s) => s.tenantId === (tenantId ?? null)).map((s) => [s.id, s]))
}

/** Which state: a migration over the whole table, or over one tenant's items. */
export interface MigrationScope {
  readonly migrationId: string
  readonly tenantId?: string
}

const stateKey = (s: MigrationScope) => keys.migration(s.migrationId, s.tenantId)

export interface Claim extends MigrationScope {
  /** Who runs it: a random id per run, so a crashed run's lease is nobody's once it lapses. */
  readonly owner: string
  readonly now: string
  /** Epoch milliseconds: a lease that lapsed before this may be taken over. */
  readonly nowMs: number
  readonly leaseUntil: number
}

export type ClaimOutcome =
  | { readonly claimed: MigrationState }
  | { readonly refused: 'done' | 'held'; readonly state: MigrationState | undefined }

/**
 * Takes the run lease of a migration that is not done and whose lease is free or lapsed (or ours),
 * creating its item on the first claim; `started_at` is kept from the first claim.
 */
export function claimParams(c: Claim) {
  return {
    Key: stateKey(c),
    UpdateExpression: `SET #type = :type, #id = :id, ${c.tenantId === undefined ? '' : '#tenant = :tenant, '}#status = :running, #owner = :owner, #until = :until, #updated = :now, #started = if_not_exists(#started, :now)`,
    ConditionExpression:
      'attribute_not_exists(#pk) OR (#status <> :done AND (attribute_not_exists(#until) OR #until < :nowMs OR #owner = :owner))',
    ExpressionAttributeNames: {
      '#pk': 'pk',
      '#type': 'type',
      '#id': 'id',
      '#status': 'status',
      '#owner': 'lease_owner',
      '#until': 'lease_until',
      '#updated': 'updated_at',
      '#started': 'started_at',
      ...(c.tenantId === undefined ? {} : { '#tenant': 'tenant_id' }),
    },
    ExpressionAttributeValues: {
      ...(c.tenantId === undefined ? {} : { ':tenant': c.tenantId }),
      ':type': 'migration',
      ':id': c.migrationId,
      ':running': 'running',
      ':done': 'done',
      ':owner': c.owner,
      ':until': c.leaseUntil,
      ':now': c.now,
      ':nowMs': c.nowMs,
    },
  }
}

export async function claimMigration(c: Claim): Promise<ClaimOutcome> {
  const outcome = await updateOrCurrent(claimParams(c))
  if ('updated' in outcome) return { claimed: toState(outcome.updated) }
  const state = outcome.refused ? toState(outcome.refused) : undefined
  return { refused: state?.status === 'done' ? 'done' : 'held', state }
}

export interface PageSaved extends MigrationScope {
  readonly owner: string
  readonly now: string
  /** Where the next page starts; null when this was the last page (the migration is then done). */
  readonly cursor: string | null
  readonly counts: MigrationCounts
  readonly leaseUntil: number
}

/**
 * After a page: its counts added, the cursor moved (or the migration done, its lease let go),
 * the lease renewed, only while the lease is still this runner's.
 */
export function savePageParams(p: PageSaved) {
  const names: Record<string, string> = {
    '#owner': 'lease_owner',
    '#updated': 'updated_at',
    '#scanned': 'scanned',
    '#changed': 'changed',
    '#skipped': 'skipped',
    '#pages': 'pages',
    '#cursor': 'cursor',
  }
  const values: Record<string, unknown> = {
    ':owner': p.owner,
    ':now': p.now,
    ':scanned': p.counts.scanned,
    ':changed': p.counts.changed,
    ':skipped': p.counts.skipped,
    ':one': 1,
  }
  const add = 'ADD #scanned :scanned, #changed :changed, #skipped :skipped, #pages :one'
  if (p.cursor === null) {
    return {
      Key: stateKey(p),
      UpdateExpression: `SET #status = :done, #finished = :now, #updated = :now ${add} REMOVE #cursor, #owner, #until`,
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: {
        ...names,
        '#status': 'status',
        '#finished': 'finished_at',
        '#until': 'lease_until',
      },
      ExpressionAttributeValues: { ...values, ':done': 'done' },
    }
  }
  return {
    Key: stateKey(p),
    UpdateExpression: `SET #cursor = :cursor, #until = :until, #updated = :now ${add}`,
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { ...names, '#until': 'lease_until' },
    ExpressionAttributeValues: { ...values, ':cursor': p.cursor, ':until': p.leaseUntil },
  }
}

/** @throws WriteRefused `lease_lost` when another runner took the lease over (ours had lapsed) */
export async function saveMigrationPage(p: PageSaved): Promise<void> {
  await writeOrRefuse(updateItem(savePageParams(p)), 'lease_lost')
}

/** Lets the lease go (a stopped run) so the next runner need not wait for it to lapse. */
export function releaseParams(scope: MigrationScope, owner: string) {
  return {
    Key: stateKey(scope),
    UpdateExpression: 'REMOVE #owner, #until',
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': 'lease_owner', '#until': 'lease_until' },
    ExpressionAttributeValues: { ':owner': owner },
  }
}

/** @throws WriteRefused `lease_lost` when the lease is no longer ours (nothing to let go) */
export async function releaseMigration(scope: MigrationScope, owner: string): Promise<void> {
  await writeOrRefuse(updateItem(releaseParams(scope, owner)), 'lease_lost')
}
