/**
 * The tool's own RS256 keys (decision 0020). Each tenant has a key ring, made at first use: the
 * private JWK is sealed with secret-box (bound to the tenant and the kid), the public JWKs of the
 * current, next and retired keys are published at /api/v1/lti/.well-known/jwks.json. Rotation is
 * two steps an hour apart at least (the JWKS is cacheable for an hour): `stage` publishes the next
 * key, `promote` makes it sign and keeps the old one published as retired.
 */
import { randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose'
import { open, seal } from '../../crypto/secret-box.ts'
import { RuleViolationError } from '../../domain/errors.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  createKeyRing,
  getKeyRing,
  getToolKeys,
  promoteNextKey,
  stageNextKey,
  type KeyRing,
  type StoredToolKey,
} from '../../store/lti/lti-keys-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import type { LtiRefusal } from '../../store/lti/lti-store.ts'

export const TOOL_ALG = 'RS256'

type SigningKey = Awaited<ReturnType<typeof importJWK>>

async function newKey(tenant: TenantContext, at: string): Promise<StoredToolKey> {
  const kid = randomUUID()
  const { publicKey, privateKey } = await generateKeyPair(TOOL_ALG, { extractable: true })
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: TOOL_ALG, use: 'sig' }
  const privateJwk = await exportJWK(privateKey)
  const sealedPrivateJwk = await seal(JSON.stringify(privateJwk), {
    purpose: 'lti-tool-key',
    tenantId: tenant.id,
    recordId: kid,
  })
  return { kid, publicJwk: JSON.stringify(publicJwk), sealedPrivateJwk, createdAt: at }
}

/** The tenant's ring, made with its first key when there is none (a concurrent maker wins alike). */
async function ring(tenant: TenantContext): Promise<KeyRing> {
  const found = await getKeyRing(tenant)
  if (found) return found
  try {
    await createKeyRing(tenant, await newKey(tenant, new Date().toISOString()))
  } catch (err) {
    if (!isRefused<LtiRefusal>(err, 'keys_exist')) throw err
  }
  const made = await getKeyRing(tenant)
  if (!made) throw new Error('The key ring was made but cannot be read')
  return made
}

const privateKeys = new Map<string, SigningKey>()

/** The key that signs now, its private half opened once per container. */
async function signingKey(tenant: TenantContext): Promise<{ kid: string; key: SigningKey }> {
  const { currentKid } = await ring(tenant)
  const cacheKey = `${tenant.id}/${currentKid}`
  const cached = privateKeys.get(cacheKey)
  if (cached) return { kid: currentKid, key: cached }
  const [stored] = await getToolKeys(tenant, [currentKid])
  if (!stored) throw new Error('The current tool key is missing')
  const jwk = JSON.parse(
    await open(stored.sealedPrivateJwk, {
      purpose: 'lti-tool-key',
      tenantId: tenant.id,
      recordId: stored.kid,
    }),
  ) as JWK
  const key = await importJWK(jwk, TOOL_ALG)
  privateKeys.set(cacheKey, key)
  return { kid: currentKid, key }
}

/** Public keys: current first, then next (published before it signs), then retired ones. */
export async function publishedJwks(tenant: TenantContext): Promise<{ keys: JWK[] }> {
  const r = await ring(tenant)
  const order = [r.currentKid, ...(r.nextKid ? [r.nextKid] : []), ...r.retiredKids]
  const stored = new Map((await getToolKeys(tenant, order)).map((k) => [k.kid, k]))
  return {
    keys: order.flatMap((kid) => {
      const k = stored.get(kid)
      return k ? [JSON.parse(k.publicJwk) as JWK] : []
    }),
  }
}

/** A JWT signed with the current key, `kid` in its header. */
export async function signAsTool(
  tenant: TenantContext,
  payload: JWTPayload,
  options: { audience: string; issuer: string; expiresInSeconds: number },
): Promise<string> {
  const { kid, key } = await signingKey(tenant)
  return new SignJWT(payload)
    .setProtectedHeader({ alg: TOOL_ALG, kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + options.expiresInSeconds)
    .setJti(randomUUID())
    .sign(key)
}

/** Verifies a token this tool signed (the learner's session) against the keys it publishes. */
export async function verifyOwn(
  tenant: TenantContext,
  token: string,
  options: { audience: string; issuer: string },
): Promise<JWTPayload> {
  const { keys } = await publishedJwks(tenant)
  const { payload } = await jwtVerify(
    token,
    async (header) => {
      const jwk = keys.find((k) => k.kid === header.kid)
      if (!jwk) throw new Error('Unknown kid')
      return importJWK(jwk, TOOL_ALG)
    },
    { algorithms: [TOOL_ALG], audience: options.audience, issuer: options.issuer },
  )
  return payload
}

/** Rotation, step 1: publishes a next key (it signs nothing until promoted). */
export async function stageToolKey(tenant: TenantContext): Promise<KeyRing> {
  return retryOnConflict(async () => {
    const r = await ring(tenant)
    if (r.nextKid) return r
    await stageNextKey(tenant, r, await newKey(tenant, new Date().toISOString()))
    return ring(tenant)
  })
}

/** Rotation, step 2: the staged key signs; the old one stays published as retired. */
export async function promoteToolKey(tenant: TenantContext): Promise<KeyRing> {
  return retryOnConflict(async () => {
    const r = await ring(tenant)
    if (!r.nextKid)
      throw new RuleViolationError('lti.no_next_key', 'No next key is published: stage one first')
    await promoteNextKey(tenant, r, r.nextKid)
    return ring(tenant)
  })
}
