/**
 * The registry of tenants: one small item per tenant in the product's own partition, written in the
 * tenant's creating transaction. The scheduled jobs go through it (a Query, page by page) instead
 * of scanning the table for tenants. Tenants are never deleted or renamed (their slug is their
 * address), so an entry is written once.
 */
import * as v from 'valibot'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import { query, type Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import type { Step } from '../core/transaction.ts'

export function tenantRegistryStep(tenant: Pick<Tenant, 'id' | 'slug'>): Step<never> {
  return {
    item: {
      Put: {
        Item: {
          ...keys.tenantRegistry(tenant.id),
          type: 'tenant_registry',
          tenant_id: tenant.id,
          slug: tenant.slug,
        },
      },
    },
  }
}

const RegistryItem = v.object({ tenant_id: v.string(), slug: v.string() })

export interface RegisteredTenant {
  readonly id: string
  readonly slug: string
}

export const registeredTenantsParams = () =>
  queryExpression({
    key: cond.eq('pk', keys.tenantRegistryPartition),
    project: ['tenant_id', 'slug'],
  })

/** Every registered tenant, one page (up to 1 MB, thousands of entries) at a time. */
export async function* registeredTenants(): AsyncGenerator<RegisteredTenant[]> {
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({ ...registeredTenantsParams(), ...(start ? { ExclusiveStartKey: start } : {}) })
    yield (out.Items ?? []).map((item: Item) => {
      const i = decodeItem('tenant registry entry', RegistryItem, item)
      return { id: i.tenant_id, slug: i.slug }
    })
    start = out.LastEvaluatedKey
  } while (start)
}

/** A page of at most `limit` registered tenants from `cursor` (opaque, as the last page gave it). */
export async function registeredTenantsPage(
  cursor: string | undefined,
  limit: number,
): Promise<{ readonly tenants: RegisteredTenant[]; readonly next: string | undefined }> {
  const start = cursor === undefined ? undefined : (JSON.parse(cursor) as Record<string, unknown>)
  const out = await query({
    ...registeredTenantsParams(),
    Limit: limit,
    ...(start ? { ExclusiveStartKey: start } : {}),
  })
  const tenants = (out.Items ?? []).map((item: Item) => {
    const i = decodeItem('tenant registry entry', RegistryItem, item)
    return { id: i.tenant_id, slug: i.slug }
  })
  return { tenants, next: out.LastEvaluatedKey && JSON.stringify(out.LastEvaluatedKey) }
}
