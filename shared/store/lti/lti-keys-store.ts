/**
 * The tool's signing keys of a tenant (decision 0020): one item per key (its public JWK and its
 * private JWK sealed with secret-box) and a ring item naming the key that signs (`current`), the
 * one published before it signs (`next`) and the retired ones still published. Every ring change
 * holds only on the version it read, so two containers never both make a first key or promote twice.
 */
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, getItem } from '../core/db.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'
import type { LtiRefusal } from './lti-store.ts'
import { commit, type Step } from '../core/transaction.ts'

export interface StoredToolKey {
  readonly kid: string
  /** The public JWK as JSON. */
  readonly publicJwk: string
  readonly sealedPrivateJwk: string
  readonly createdAt: string
}

export interface KeyRing {
  readonly currentKid: string
  readonly nextKid: string | null
  readonly retiredKids: readonly string[]
  readonly version: number
}

/** How many retired keys stay published (a token signed just before a promotion still verifies). */
export const RETIRED_KEYS_KEPT = 2

const toolKeyEntity = defineEntity(
  'lti_tool_key',
  {
    kid: field('kid', v.string()),
    publicJwk: field('public_jwk', v.string()),
    sealedPrivateJwk: field('sealed_private_jwk', v.string()),
    createdAt: field('created_at', v.string()),
  },
  { key: (tenant: TenantContext, k) => keys.ltiToolKey(tenant, k.kid) },
)

const ringEntity = defineEntity(
  'lti_key_ring',
  {
    currentKid: field('current_kid', v.string()),
    nextKid: optionalField('next_kid', v.string()),
    retiredKids: field('retired_kids', v.pipe(v.array(v.string()), v.readonly())),
    version: field('version', v.number()),
  },
  { key: (tenant: TenantContext) => keys.ltiKeyRing(tenant) },
)

const keyItem = (tenant: TenantContext, k: StoredToolKey) => ({
  Put: { Item: toolKeyEntity.item(tenant, k), ...conditionExpression(cond.notExists()) },
})

const ringUpdate = (tenant: TenantContext, before: KeyRing, after: Omit<KeyRing, 'version'>) => {
  const { set, remove } = ringEntity.changeOf(before, after, ['currentKid', 'nextKid', 'retiredKids'])
  return {
    Update: {
      Key: keys.ltiKeyRing(tenant),
      ...updateExpression(
        { set: { ...set, version: before.version + 1 }, remove },
        cond.eq('version', before.version),
      ),
    },
  }
}

export const keyRingParams = {
  create: (tenant: TenantContext, first: StoredToolKey): Step<LtiRefusal>[] => [
    { item: keyItem(tenant, first), refusal: 'id_taken' },
    {
      item: {
        Put: {
          Item: ringEntity.item(tenant, {
            currentKid: first.kid,
            nextKid: null,
            retiredKids: [],
            version: 1,
          }),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'keys_exist',
    },
  ],
  stage: (tenant: TenantContext, ring: KeyRing, next: StoredToolKey): Step<LtiRefusal>[] => [
    { item: keyItem(tenant, next), refusal: 'id_taken' },
    { item: ringUpdate(tenant, ring, { ...ring, nextKid: next.kid }), refusal: 'stale' },
  ],
  promote: (tenant: TenantContext, ring: KeyRing, nextKid: string): Step<LtiRefusal>[] => [
    {
      item: ringUpdate(tenant, ring, {
        currentKid: nextKid,
        nextKid: null,
        retiredKids: [ring.currentKid, ...ring.retiredKids].slice(0, RETIRED_KEYS_KEPT),
      }),
      refusal: 'stale',
    },
  ],
}

export async function getKeyRing(tenant: TenantContext): Promise<KeyRing | undefined> {
  const item = await getItem(keys.ltiKeyRing(tenant), { ConsistentRead: true })
  return item ? ringEntity.decode(item) : undefined
}

export async function getToolKeys(tenant: TenantContext, kids: readonly string[]): Promise<StoredToolKey[]> {
  if (kids.length === 0) return []
  const items = await batchGet(kids.map((kid) => keys.ltiToolKey(tenant, kid)))
  return items.map(toolKeyEntity.decode)
}

/** @throws WriteRefused naming `keys_exist` when another caller made the first key meanwhile */
export const createKeyRing = (tenant: TenantContext, first: StoredToolKey) =>
  commit(keyRingParams.create(tenant, first))
/** @throws WriteRefused naming `stale` */
export const stageNextKey = (tenant: TenantContext, ring: KeyRing, next: StoredToolKey) =>
  commit(keyRingParams.stage(tenant, ring, next))
/** @throws WriteRefused naming `stale` */
export const promoteNextKey = (tenant: TenantContext, ring: KeyRing, nextKid: string) =>
  commit(keyRingParams.promote(tenant, ring, nextKid))
