/**
 * The record-store (LRS) connection: connect (or update), the read-only connection test, and
 * disconnect. The secret is sealed at rest and never returned; the endpoint passes the SSRF guard
 * when saved and again whenever it is called.
 */
import { randomUUID } from 'node:crypto'
import { config } from '../../config.ts'
import { open, seal, SealedValueError, type SealedFor } from '../../crypto/secret-box.ts'
import { NotFoundError, ValidationError } from '../../domain/errors.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  basicAuth,
  normalizeEndpoint,
  statementsUrl,
  type IdentityMode,
  type LrsConnection,
} from '../../domain/xapi/connection.ts'
import { XAPI_VERSION } from '../../domain/xapi/statement.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { checkTarget, UnsafeTargetError } from '../../net/ssrf-guard.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { deleteConnection, getConnection, saveConnection } from '../../store/deliveries/xapi-store.ts'

const nowIso = () => new Date().toISOString()
export const lrsGuard = () => ({ allowLoopback: config.allowLoopbackTargets })

/** The record-store secret opens only for its tenant's connection of that id. */
export const recordStoreSecretOf = (tenant: TenantContext, connectionId: string): SealedFor => ({
  purpose: 'record-store-secret',
  tenantId: tenant.id,
  recordId: connectionId,
})

/**
 * The secret of the connection being saved, sealed for it: the one sent, else the saved one
 * (sealed again when the connection gets a new id).
 */
async function sealedSecretFor(
  tenant: TenantContext,
  id: string,
  secret: string | undefined,
  saved: LrsConnection | undefined,
): Promise<string> {
  if (secret) return seal(secret, recordStoreSecretOf(tenant, id))
  if (!saved) throw new ValidationError('secret', 'secret is required when connecting for the first time')
  if (saved.id === id) return saved.sealedSecret
  try {
    return await seal(
      await open(saved.sealedSecret, recordStoreSecretOf(tenant, saved.id)),
      recordStoreSecretOf(tenant, id),
    )
  } catch (err) {
    if (!(err instanceof SealedValueError)) throw err
    throw new ValidationError('secret', 'secret is required: the saved secret can no longer be read')
  }
}

export interface ConnectInput {
  readonly endpoint: string
  /** Blank keeps the saved key (required on first save). */
  readonly key?: string
  /** Blank keeps the saved secret (required on first save). */
  readonly secret?: string
  /** Unset keeps the saved mode (anonymous on first save). */
  readonly identityMode?: IdentityMode
}

/** The connection `input` makes of the one saved (if any). */
async function decideConnection(
  tenant: TenantContext,
  input: ConnectInput,
  endpoint: string,
  saved: LrsConnection | undefined,
  at: string,
): Promise<LrsConnection> {
  const key = input.key?.trim() || saved?.key
  if (!key) throw new ValidationError('key', 'key is required when connecting for the first time')
  if (!input.secret && !saved) {
    throw new ValidationError('secret', 'secret is required when connecting for the first time')
  }
  const identityMode = input.identityMode ?? saved?.identityMode ?? 'anonymous'
  // Statements are built for one store and one actor form: another endpoint or mode is a new
  // connection, so a pending statement of the old one fails (disconnected) rather than going elsewhere.
  const sameStore = saved !== undefined && saved.endpoint === endpoint && saved.identityMode === identityMode
  const id = sameStore ? saved.id : randomUUID()
  return {
    id,
    endpoint,
    key,
    sealedSecret: await sealedSecretFor(tenant, id, input.secret, saved),
    identityMode,
    // A new store starts its export now: nothing from before it was connected (no back-fill).
    connectedAt: sameStore ? saved.connectedAt : at,
    updatedAt: at,
  }
}

export async function connect(
  tenant: TenantContext,
  input: ConnectInput,
  actor: string,
  at = nowIso(),
): Promise<LrsConnection> {
  const endpoint = normalizeEndpoint(input.endpoint)
  try {
    await checkTarget(endpoint, lrsGuard())
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw new ValidationError('endpoint', `endpoint: ${err.reason}`)
    throw err
  }
  // Decided from the connection read and saved only over it: a concurrent connect or disconnect
  // makes this one decide again from what it left.
  const { connection, saved } = await retryOnConflict(async () => {
    const saved = await getConnection(tenant)
    const connection = await decideConnection(tenant, input, endpoint, saved, at)
    await saveConnection(tenant, connection, saved)
    return { connection, saved }
  })
  await writeAudit(tenant, {
    action: saved ? 'lrs.update' : 'lrs.connect',
    actor,
    details: { endpoint, identityMode: connection.identityMode, secretChanged: Boolean(input.secret) },
    createdAt: at,
  })
  return connection
}

export async function requireConnection(tenant: TenantContext): Promise<LrsConnection> {
  const c = await getConnection(tenant)
  if (!c) throw new NotFoundError('lrs_connection')
  return c
}

export interface ConnectionTest {
  readonly ok: boolean
  readonly httpStatus: number | null
  readonly reason: string | null
}

/**
 * One read-only `GET /statements?limit=1`. A write-only key is sufficient (document 001), and a
 * store answers its GET with 403: that passes when the answer is an xAPI record store's (it carries
 * `X-Experience-API-Version`, as every LRS response must), since it then proves the address and
 * the credentials. A bare 403 (a bucket, a CDN, a firewall), 401 and everything else fail.
 */
export async function testConnection(tenant: TenantContext): Promise<ConnectionTest> {
  const c = await requireConnection(tenant)
  let secret: string
  try {
    secret = await open(c.sealedSecret, recordStoreSecretOf(tenant, c.id))
  } catch (err) {
    if (!(err instanceof SealedValueError)) throw err
    return { ok: false, httpStatus: null, reason: 'secret_unreadable' }
  }
  const result = await sendOutbound({
    url: statementsUrl(c.endpoint, 'limit=1'),
    method: 'GET',
    headers: {
      authorization: basicAuth(c.key, secret),
      'x-experience-api-version': XAPI_VERSION,
      accept: 'application/json',
    },
    timeoutMs: config.xapiTimeoutMs,
    guard: lrsGuard(),
  })
  if (result.kind === 'failure') return { ok: false, httpStatus: null, reason: result.reason }
  const fromRecordStore = result.headers['x-experience-api-version'] !== undefined
  const ok = (result.status >= 200 && result.status < 300) || (result.status === 403 && fromRecordStore)
  return { ok, httpStatus: result.status, reason: ok ? null : `http_${result.status}` }
}

/** Deletes the credentials; the worker refuses every later attempt, so export stops at once. */
export async function disconnect(tenant: TenantContext, actor: string, at = nowIso()): Promise<string> {
  if (!(await deleteConnection(tenant))) throw new NotFoundError('lrs_connection')
  await writeAudit(tenant, { action: 'lrs.disconnect', actor, details: {}, createdAt: at })
  return at
}
