/**
 * Stored content against the plan's storage cap: the tenant's `storage_bytes` counter and, per
 * module, the size of its package (so a replacement moves the counter by the difference only). The
 * counter moves before the bytes are stored, in one transaction conditioned on the cap and on the
 * package size as read: two uploads racing for the last megabytes cannot both fit.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { getItem } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import { commit, type Step } from '../core/transaction.ts'

export type StorageRefusal = 'storage_cap' | 'stale'

const PackageSizeItem = v.object({ bytes: v.number() })

/** @returns the stored package's size in bytes; undefined when the module has none */
export async function getPackageBytes(tenant: TenantContext, moduleId: string): Promise<number | undefined> {
  const item = await getItem(keys.packageSize(tenant, moduleId), { ConsistentRead: true })
  return item ? decodeItem('package size', PackageSizeItem, item).bytes : undefined
}

export interface PackageSizeChange {
  readonly moduleId: string
  /** As read; undefined when the module had no package. */
  readonly before: number | undefined
  /** undefined removes the record (a reservation given back). */
  readonly after: number | undefined
  /** The cap in bytes, checked when the change adds bytes; null is unlimited. */
  readonly capBytes: number | null
  readonly at: string
}

export function packageSizeSteps(tenant: TenantContext, change: PackageSizeChange): Step<StorageRefusal>[] {
  const { moduleId, before, after, capBytes, at } = change
  const delta = (after ?? 0) - (before ?? 0)
  const asRead = before === undefined ? cond.notExists() : cond.eq('bytes', before)
  const record: Step<StorageRefusal> =
    after === undefined
      ? {
          item: { Delete: { Key: keys.packageSize(tenant, moduleId), ...conditionExpression(asRead) } },
          refusal: 'stale',
        }
      : {
          item: {
            Update: {
              Key: keys.packageSize(tenant, moduleId),
              ...updateExpression({ set: { bytes: after, updated_at: at } }, asRead),
            },
          },
          refusal: 'stale',
        }
  const fits =
    delta > 0 && capBytes !== null
      ? cond.or(cond.notExists('storage_bytes'), cond.le('storage_bytes', capBytes - delta))
      : undefined
  // A same-size replacement moves no counter (and an update must change something).
  if (delta === 0) return [record]
  const counter: Step<StorageRefusal> = {
    item: {
      Update: { Key: keys.counters(tenant), ...updateExpression({ add: { storage_bytes: delta } }, fits) },
    },
    ...(fits ? { refusal: 'storage_cap' as const } : {}),
  }
  return [record, counter]
}

/** @throws WriteRefused naming `storage_cap` (it does not fit) or `stale` (the package changed meanwhile) */
export async function changePackageSize(tenant: TenantContext, change: PackageSizeChange): Promise<void> {
  await commit(packageSizeSteps(tenant, change))
}
