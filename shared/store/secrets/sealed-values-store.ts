/**
 * Every value sealed with secret-box that the table keeps, found tenant by tenant through the
 * tenant registry (no Scan): a tenant's webhook endpoints' signing secrets, its record-store
 * connection's secret, its LTI tool keys' private halves. For the re-seal job
 * (shared/services/secrets/reseal-service.ts), which moves them to the newest key.
 */
import * as v from 'valibot'
import { conditionally, getItem, query, queryAll, updateItem, type Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, projectionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'

export type SealedPurpose = 'webhook-signing-secret' | 'record-store-secret' | 'lti-tool-key'

/** One stored sealed value, where it is and what it is sealed for; the value is never logged. */
export interface StoredSealedValue {
  readonly purpose: SealedPurpose
  readonly tenantId: string
  readonly recordId: string
  readonly sealed: string
  readonly key: Key
  readonly attribute: 'sealed_secret' | 'sealed_private_jwk'
}

const RegistryItem = v.object({ tenant_id: v.string() })

/** Up to `limit` tenants of the registry after `afterTenantId` (the cursor), and whether more follow. */
export async function tenantsAfter(
  afterTenantId: string | undefined,
  limit: number,
): Promise<{ tenantIds: string[]; more: boolean }> {
  const out = await query({
    ...queryExpression({ key: cond.eq('pk', keys.tenantRegistryPartition), project: ['tenant_id'] }),
    Limit: limit,
    ...(afterTenantId ? { ExclusiveStartKey: keys.tenantRegistry(afterTenantId) } : {}),
  })
  const tenantIds = (out.Items ?? []).map(
    (i: Item) => decodeItem('tenant registry entry', RegistryItem, i).tenant_id,
  )
  return { tenantIds, more: out.LastEvaluatedKey !== undefined }
}

const WithSecret = v.object({ pk: v.string(), sk: v.string(), id: v.string(), sealed_secret: v.string() })
const WithPrivateJwk = v.object({
  pk: v.string(),
  sk: v.string(),
  kid: v.string(),
  sealed_private_jwk: v.string(),
})

/** Two Queries and a GetItem on the tenant's partition, each on its own prefix or key. */
export async function sealedValuesOf(tenantId: string): Promise<StoredSealedValue[]> {
  const tenant = { id: tenantId }
  const prefixed = (prefix: string, project: string[]) =>
    queryAll(
      queryExpression({
        key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', prefix)),
        project,
      }),
    )
  const [endpoints, connection, toolKeys] = await Promise.all([
    prefixed(keys.webhookEndpointPrefix, ['pk', 'sk', 'id', 'sealed_secret']),
    getItem(keys.lrsConnection(tenant), {
      ...projectionExpression(['pk', 'sk', 'id', 'sealed_secret']),
      ConsistentRead: true,
    }),
    prefixed(keys.ltiToolKeyPrefix, ['pk', 'sk', 'kid', 'sealed_private_jwk']),
  ])
  const withSecret = (purpose: SealedPurpose) => (item: Item) => {
    const i = decodeItem(purpose, WithSecret, item)
    return {
      purpose,
      tenantId,
      recordId: i.id,
      sealed: i.sealed_secret,
      key: { pk: i.pk, sk: i.sk },
      attribute: 'sealed_secret' as const,
    }
  }
  return [
    ...endpoints.map(withSecret('webhook-signing-secret')),
    ...(connection ? [withSecret('record-store-secret')(connection)] : []),
    ...toolKeys.map((item) => {
      const i = decodeItem('lti-tool-key', WithPrivateJwk, item)
      return {
        purpose: 'lti-tool-key' as const,
        tenantId,
        recordId: i.kid,
        sealed: i.sealed_private_jwk,
        key: { pk: i.pk, sk: i.sk },
        attribute: 'sealed_private_jwk' as const,
      }
    }),
    // A deleted webhook endpoint keeps an empty secret: nothing to move.
  ].filter((s) => s.sealed !== '')
}

/**
 * Writes `next` in place of the value read, only if it is that value still: a secret changed
 * meanwhile (a new LRS secret, a deleted endpoint) is left as it now is. @returns whether it wrote.
 */
export function replaceSealedValue(stored: StoredSealedValue, next: string): Promise<boolean> {
  return conditionally(
    updateItem({
      Key: stored.key,
      ...updateExpression({ set: { [stored.attribute]: next } }, cond.eq(stored.attribute, stored.sealed)),
    }),
  )
}
