import type { Scope } from '../routes.ts'
import type { KeyEnv } from '../domain/api-keys/key-format.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { getItem, query, transact, TransactionConditionFailed, type Item } from './db.ts'
import { keys } from './keys.ts'

export interface ApiKeyRecord {
  readonly id: string
  readonly tenantId: string
  readonly prefix: string
  readonly hash: string
  readonly env: KeyEnv
  readonly scopes: readonly Scope[]
  readonly expiresAt: string | null
  readonly revokedAt: string | null
  readonly createdAt: string
}

function toRecord(item: Item): ApiKeyRecord {
  return {
    id: item.id as string,
    tenantId: item.tenant_id as string,
    prefix: item.prefix as string,
    hash: item.hash as string,
    env: item.env as KeyEnv,
    scopes: item.scopes as Scope[],
    expiresAt: (item.expires_at as string | null) ?? null,
    revokedAt: (item.revoked_at as string | null) ?? null,
    createdAt: item.created_at as string,
  }
}

function attributes(record: ApiKeyRecord): Item {
  return {
    type: 'api_key',
    id: record.id,
    tenant_id: record.tenantId,
    prefix: record.prefix,
    hash: record.hash,
    env: record.env,
    scopes: [...record.scopes],
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    created_at: record.createdAt,
  }
}

/** Strongly consistent, so a key revoked a moment ago is refused at once. */
export async function getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
  const item = await getItem(keys.apiKeyByHash(hash), { ConsistentRead: true })
  return item ? toRecord(item) : undefined
}

export async function insertApiKey(tenant: TenantContext, record: ApiKeyRecord): Promise<void> {
  await transact([
    { Put: { Item: { ...keys.apiKeyByHash(record.hash), ...attributes(record) } } },
    { Put: { Item: { ...keys.apiKeyRef(tenant, record.id), ...attributes(record) } } },
  ])
}

export async function listApiKeys(tenant: TenantContext): Promise<ApiKeyRecord[]> {
  const out = await query({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.apiKeyRefPrefix },
  })
  return (out.Items ?? []).map(toRecord)
}

/** Revokes both the lookup item and the tenant's listing item together; undefined when absent. */
export async function revokeApiKey(
  tenant: TenantContext,
  id: string,
  now: string,
): Promise<ApiKeyRecord | undefined> {
  const ref = await getItem(keys.apiKeyRef(tenant, id))
  if (!ref) return undefined
  const record = toRecord(ref)
  if (record.revokedAt) return record
  const update = {
    UpdateExpression: 'SET revoked_at = :now',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':now': now },
  }
  try {
    await transact([
      { Update: { Key: keys.apiKeyRef(tenant, id), ...update } },
      { Update: { Key: keys.apiKeyByHash(record.hash), ...update } },
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed) return undefined
    throw err
  }
  return { ...record, revokedAt: now }
}
