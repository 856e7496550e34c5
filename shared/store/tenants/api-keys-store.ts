/**
 * API keys: a global lookup item by the key's hash (the only way in from a request) and a listing
 * item in the tenant's partition, written and revoked together.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { KeyEnv } from '../../domain/api-keys/key-format.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { Scope } from '../../routes.ts'
import { getItem, query, type Item } from '../core/db.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, type Key } from '../core/keys.ts'
import { commit, type Step } from '../core/transaction.ts'
import { isRefused } from '../core/store-errors.ts'

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

export type ApiKeyRefusal = 'gone'

/**
 * The same attributes under two keys: the global lookup by the key's hash (`byHash`) and the
 * listing item in the tenant's partition.
 */
const apiKeyEntity = defineEntity(
  'api_key',
  {
    id: field('id', v.string()),
    tenantId: field('tenant_id', v.string()),
    prefix: field('prefix', v.string()),
    hash: field('hash', v.string()),
    env: field('env', v.picklist(['live', 'test'])),
    scopes: field('scopes', v.pipe(v.array(v.picklist(['read', 'write', 'admin'])), v.readonly())),
    expiresAt: optionalField('expires_at', v.string()),
    revokedAt: optionalField('revoked_at', v.string()),
    createdAt: field('created_at', v.string()),
  },
  {
    key: (at: 'byHash' | TenantContext, k) =>
      at === 'byHash' ? keys.apiKeyByHash(k.hash) : keys.apiKeyRef(at, k.id),
  },
)

/** @throws MalformedItem when the item is not an API key */
const toRecord = (item: Item): ApiKeyRecord => apiKeyEntity.decode(item)

/** Strongly consistent, so a key revoked a moment ago is refused at once. */
export function apiKeyByHashGetParams(hash: string): { Key: Key; ConsistentRead: true } {
  return { Key: keys.apiKeyByHash(hash), ConsistentRead: true }
}

export async function getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
  const { Key, ...options } = apiKeyByHashGetParams(hash)
  const item = await getItem(Key, options)
  return item ? toRecord(item) : undefined
}

/** The lookup item and the tenant's listing item of a new key. */
export function insertApiKeySteps(tenant: TenantContext, record: ApiKeyRecord): Step<never>[] {
  return [
    { item: { Put: { Item: apiKeyEntity.item('byHash', record) } } },
    { item: { Put: { Item: apiKeyEntity.item(tenant, record) } } },
  ]
}

export async function insertApiKey(tenant: TenantContext, record: ApiKeyRecord): Promise<void> {
  await commit(insertApiKeySteps(tenant, record))
}

export function apiKeysQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return queryExpression({
    key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.apiKeyRefPrefix)),
  })
}

export async function listApiKeys(tenant: TenantContext): Promise<ApiKeyRecord[]> {
  const out = await query(apiKeysQueryParams(tenant))
  return (out.Items ?? []).map(toRecord)
}

/** Both items revoked at `now`; refused as `gone` when either no longer exists. */
export function revokeApiKeySteps(
  tenant: TenantContext,
  record: Pick<ApiKeyRecord, 'id' | 'hash'>,
  now: string,
): Step<ApiKeyRefusal>[] {
  const revoke = (Key: Key): Step<ApiKeyRefusal> => ({
    item: {
      Update: {
        Key,
        ...updateExpression({ set: apiKeyEntity.encode({ revokedAt: now }, ['revokedAt']) }, cond.exists()),
      },
    },
    refusal: 'gone',
  })
  return [revoke(keys.apiKeyRef(tenant, record.id)), revoke(keys.apiKeyByHash(record.hash))]
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
  try {
    await commit(revokeApiKeySteps(tenant, record, now))
  } catch (err) {
    if (isRefused<ApiKeyRefusal>(err, 'gone')) return undefined
    throw err
  }
  return { ...record, revokedAt: now }
}
