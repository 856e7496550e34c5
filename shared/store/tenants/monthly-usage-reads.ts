/**
 * The month's API usage of many tenants at once (100 keys a call), for the usage-alerts job: the
 * count the request path keeps (shared/store/tenants/rate-limits-store.ts), read without changing it.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import { keys, type Key } from '../core/keys.ts'

const UsageItem = v.object({ pk: v.string(), count: withDefault(v.number(), 0) })

export const monthlyUsageKeys = (tenants: readonly TenantContext[], month: string): Key[] =>
  tenants.map((t) => keys.monthlyUsage(t, month))

/** Each tenant's count for `month`; a tenant without a request this month is absent (0). */
export async function monthlyUsageOf(
  tenants: readonly TenantContext[],
  month: string,
): Promise<Map<string, number>> {
  const byPartition = new Map(tenants.map((t) => [keys.tenantPartition(t), t.id]))
  const items = await batchGet(monthlyUsageKeys(tenants, month))
  const out = new Map<string, number>()
  for (const item of items) {
    const usage = decodeItem('monthly usage', UsageItem, item)
    const tenantId = byPartition.get(usage.pk)
    if (tenantId !== undefined) out.set(tenantId, usage.count)
  }
  return out
}
