/**
 * Webhooks: endpoints (operator CLI and the API's settings routes), fan-out of outbox events into deliveries (the relay), the
 * delivery attempts (the worker), the deliveries view and retry-now.
 */
import { randomUUID } from 'node:crypto'
import { config } from '../../config.ts'
import { open, seal, type SealedFor } from '../../crypto/secret-box.ts'
import { ConflictError, NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { hasCapability, requireCapability } from '../../domain/plans/entitlements.ts'
import { newestFirst, statusAfterFailure } from '../../domain/attempts.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  deliveryIdFor,
  isDeliverable,
  isEventType,
  MAX_ATTEMPTS,
  newSigningSecret,
  RESPONSE_BODY_LIMIT,
  retryDelay,
  signatureHeaders,
  signingSealedSecrets,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../domain/webhooks/webhook.ts'
import type { DomainEvent, EventType } from '../../domain/events.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { checkTarget, UnsafeTargetError } from '../../net/ssrf-guard.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { isStale, retryOnConflict } from '../../store/core/optimistic.ts'
import { WriteRefused } from '../../store/core/store-errors.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { oncePerBatch } from '../core/batch-reads.ts'
import { runQueuedAttempt } from './claimed-attempt.ts'
import { newDeliveryRow, relayedMessage, retryCopy, WebhookMessage } from './webhook-messages.ts'
import {
  changeEndpoint,
  claimAttemptRow,
  claimNewDeliveryRow,
  deleteEndpoint as deleteStoredEndpoint,
  getDelivery,
  getEndpoint,
  insertEndpoint,
  listDeliveries as listStoredDeliveries,
  listDeliveriesPage as listStoredDeliveriesPage,
  type DeliveryPageQuery,
  listEndpoints,
  recordAttempt,
  stopPendingDeliveries,
} from '../../store/deliveries/webhooks-store.ts'

const nowIso = () => new Date().toISOString()
const guard = () => ({ allowLoopback: config.allowLoopbackTargets })

/** A signing secret opens only on its own endpoint: copied onto another tenant's, it does not. */
const signingSecretOf = (tenant: TenantContext, endpointId: string): SealedFor => ({
  purpose: 'webhook-signing-secret',
  tenantId: tenant.id,
  recordId: endpointId,
})

/** Who changes endpoint settings when the caller does not say: the operator's CLI. */
const OPERATOR = 'operator-cli'

/** The URL as the CLI and the API take it: https, public (loopback only where the local flag allows). */
async function checkEndpointUrl(url: string): Promise<void> {
  try {
    await checkTarget(url, guard())
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw new ValidationError('url', `url: ${err.reason}`)
    throw err
  }
}

function checkEvents(events: readonly string[]): EventType[] {
  const unknown = events.find((e) => !isEventType(e))
  if (events.length === 0 || unknown !== undefined) {
    throw new ValidationError(
      'events',
      `events must list event types of the catalog${unknown ? `; ${unknown} is not one` : ''}`,
    )
  }
  return [...new Set(events.filter(isEventType))]
}

export interface NewEndpointOptions {
  readonly description?: string | null
  readonly actor?: string
  readonly at?: string
}

export async function createEndpoint(
  tenant: TenantContext,
  url: string,
  events: readonly string[],
  { description = null, actor = OPERATOR, at = nowIso() }: NewEndpointOptions = {},
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  requireCapability(tenant.plan, 'webhooks')
  const subscribed = checkEvents(events)
  await checkEndpointUrl(url)
  const secret = newSigningSecret()
  const id = randomUUID()
  const endpoint: WebhookEndpoint = {
    id,
    url,
    events: subscribed,
    description,
    isActive: true,
    sealedSecret: await seal(secret, signingSecretOf(tenant, id)),
    previousSealedSecret: null,
    previousSecretExpiresAt: null,
    secretRotatedAt: null,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  }
  await insertEndpoint(tenant, endpoint)
  await writeAudit(tenant, {
    action: 'webhook.create',
    actor,
    details: { endpointId: id, url, events: subscribed },
    createdAt: at,
  })
  return { endpoint, secret }
}

/** Endpoints stay listed and deletable whatever the plan. */
export async function listLiveEndpoints(tenant: TenantContext): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(tenant)).filter((e) => e.deletedAt === null)
}

/** An endpoint not deleted; another tenant's id, or a deleted one, is not found. */
export async function getLiveEndpoint(tenant: TenantContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getEndpoint(tenant, id)
  if (!endpoint || endpoint.deletedAt !== null) throw new NotFoundError('webhook_endpoint')
  return endpoint
}

/**
 * Deleting stops delivery: the endpoint's pending deliveries fail at once (`endpoint_inactive`),
 * and an attempt under way finds it deleted on its next try. Written to the audit log.
 */
export async function deleteEndpoint(
  tenant: TenantContext,
  id: string,
  actor = OPERATOR,
  at = nowIso(),
): Promise<string> {
  if (!(await deleteStoredEndpoint(tenant, id, at))) throw new NotFoundError('webhook_endpoint')
  await writeAudit(tenant, { action: 'webhook.delete', actor, details: { endpointId: id }, createdAt: at })
  await stopPendingDeliveries(tenant, id, at)
  return at
}

/**
 * Writes `decide(endpoint as read)` over it, conditioned on it not having changed meanwhile (then
 * read and decided again); a deleted endpoint is not found.
 */
async function changeLiveEndpoint(
  tenant: TenantContext,
  id: string,
  decide: (before: WebhookEndpoint) => Promise<WebhookEndpoint>,
): Promise<WebhookEndpoint> {
  try {
    return await retryOnConflict(async () => {
      const before = await getLiveEndpoint(tenant, id)
      const out = await changeEndpoint(tenant, before, await decide(before))
      if ('changed' in out) return out.changed
      if (!out.refused || out.refused.deletedAt !== null) throw new NotFoundError('webhook_endpoint')
      throw new WriteRefused(['stale'])
    })
  } catch (err) {
    if (!isStale(err)) throw err
    throw new ConflictError(
      'webhook_endpoint.busy',
      'The endpoint is being changed by another request; try again',
    )
  }
}

export interface EndpointChanges {
  readonly url?: string
  readonly events?: readonly string[]
  readonly description?: string | null
  readonly isActive?: boolean
}

/** A settings change; `isActive: false` stops deliveries until it is set back. Audited (field names only). */
export async function updateEndpoint(
  tenant: TenantContext,
  id: string,
  changes: EndpointChanges,
  actor = OPERATOR,
  at = nowIso(),
): Promise<WebhookEndpoint> {
  const events = changes.events === undefined ? undefined : checkEvents(changes.events)
  await getLiveEndpoint(tenant, id)
  requireCapability(tenant.plan, 'webhooks')
  if (changes.url !== undefined) await checkEndpointUrl(changes.url)
  const endpoint = await changeLiveEndpoint(tenant, id, async (before) => ({
    ...before,
    url: changes.url ?? before.url,
    events: events ?? before.events,
    description: changes.description === undefined ? before.description : changes.description,
    isActive: changes.isActive ?? before.isActive,
    updatedAt: at,
  }))
  await writeAudit(tenant, {
    action: 'webhook.update',
    actor,
    details: {
      endpointId: id,
      changed: Object.keys(changes).filter((k) => changes[k as keyof EndpointChanges] !== undefined),
      ...(changes.isActive === undefined ? {} : { isActive: changes.isActive }),
    },
    createdAt: at,
  })
  return endpoint
}

/**
 * A new signing secret, shown this once. The previous one keeps signing beside it for
 * `expirePreviousInSeconds` (none when 0), sealed like the current one. Audited, without either secret.
 */
export async function rotateSecret(
  tenant: TenantContext,
  id: string,
  expirePreviousInSeconds: number,
  actor = OPERATOR,
  at = nowIso(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await getLiveEndpoint(tenant, id)
  requireCapability(tenant.plan, 'webhooks')
  const secret = newSigningSecret()
  const sealed = await seal(secret, signingSecretOf(tenant, id))
  const keepsPrevious = expirePreviousInSeconds > 0
  const endpoint = await changeLiveEndpoint(tenant, id, async (before) => ({
    ...before,
    sealedSecret: sealed,
    previousSealedSecret: keepsPrevious ? before.sealedSecret : null,
    previousSecretExpiresAt: keepsPrevious
      ? new Date(Date.parse(at) + expirePreviousInSeconds * 1000).toISOString()
      : null,
    secretRotatedAt: at,
    updatedAt: at,
  }))
  await writeAudit(tenant, {
    action: 'webhook.rotate_secret',
    actor,
    details: { endpointId: id, expirePreviousInSeconds },
    createdAt: at,
  })
  return { endpoint, secret }
}

/**
 * The relay's fan-out: one delivery per subscribed live endpoint, its body serialised once here.
 * Without the webhooks entitlement nothing is dispatched (events raised meanwhile are not sent
 * later: see docs/decisions/0008-events.md). `liveEndpoints` lets the events of one relay batch
 * share one read of a tenant's endpoints (shared/services/core/batch-reads.ts).
 */
export async function fanOut(
  tenant: TenantContext,
  event: DomainEvent,
  at = nowIso(),
  liveEndpoints: (tenant: TenantContext) => Promise<WebhookEndpoint[]> = listLiveEndpoints,
): Promise<number> {
  if (!hasCapability(tenant.plan, 'webhooks')) return 0
  const endpoints = (await liveEndpoints(tenant)).filter(
    (e) => isDeliverable(e) && e.events.includes(event.event),
  )
  for (const endpoint of endpoints) {
    const id = deliveryIdFor(event.id, endpoint.id)
    // The worker's first claim writes the row (decision 0028). Sent again for an event relayed
    // again: the claim refuses a duplicate (one row, one attempt).
    await sendMessage(config.webhooksQueueUrl, relayedMessage(tenant.id, id, endpoint.id, event, at))
  }
  return endpoints.length
}

/** What one attempt came to, recorded on the delivery. */
type AttemptOutcome = Pick<WebhookDelivery, 'status' | 'httpStatus' | 'responseBody' | 'reason'>

/** How an attempt reads its endpoint: `endpointReads` shares one read among a batch's attempts. */
type EndpointRead = (ref: {
  tenant: TenantContext
  endpointId: string
}) => Promise<WebhookEndpoint | undefined>

const readEndpoint: EndpointRead = ({ tenant, endpointId }) => getEndpoint(tenant, endpointId)

/** Endpoint reads for the attempts of one SQS batch: each endpoint read once, when first needed. */
export function endpointReads(): EndpointRead {
  return oncePerBatch(({ tenant, endpointId }) => `${tenant.id}/${endpointId}`, readEndpoint)
}

/** A queued attempt of a delivery whose tenant may be gone meanwhile (nothing to do then). */
/** @returns the status the attempt recorded (`pending`: another follows), undefined when none was made */
export async function attemptQueuedDelivery(
  msg: WebhookMessage,
  endpoint: EndpointRead = endpointReads(),
): Promise<DeliveryStatus | undefined> {
  const tenant = await tenantById(msg.tenantId)
  if (!tenant) return undefined
  // Read beside the claim: `endpoint` shares the read with the attempt (endpointReads), which
  // follows only a claim that succeeded. A read that fails is read again by the attempt.
  if (msg.endpointId) endpoint({ tenant, endpointId: msg.endpointId }).catch(() => undefined)
  return attemptDelivery(tenant, msg, nowIso(), endpoint)
}

/**
 * One attempt (shared/services/deliveries/claimed-attempt.ts): a duplicate message does nothing, a failure
 * with attempts left, an exception while making the attempt included, queues the next.
 */
export async function attemptDelivery(
  tenant: TenantContext,
  msg: WebhookMessage,
  at = nowIso(),
  endpoint: EndpointRead = readEndpoint,
): Promise<DeliveryStatus | undefined> {
  return runQueuedAttempt({
    attempt: msg.attempt,
    maxAttempts: MAX_ATTEMPTS,
    claim: async () =>
      msg.delivery && msg.attempt === 1
        ? claimNewDeliveryRow(tenant, await newDeliveryRow(tenant, msg.deliveryId, msg.delivery), at)
        : claimAttemptRow(tenant, msg.deliveryId, msg.attempt, at),
    make: (delivery) => makeAttempt(tenant, delivery, msg.attempt, endpoint),
    fault: (failure): AttemptOutcome => ({ ...failure, httpStatus: null, responseBody: null }),
    record: (delivery, outcome) => recordAttempt(tenant, delivery.id, msg.attempt, outcome, nowIso()),
    queueNext: () => queueNextAttempt(msg),
    log: (delivery) => ({ msg: 'webhook attempt threw', tenantId: tenant.id, deliveryId: delivery.id }),
  })
}

/** Makes claimed attempt number `attempt` of `delivery`; the caller records what it came to. */
async function makeAttempt(
  tenant: TenantContext,
  delivery: WebhookDelivery,
  attempt: number,
  readEndpointOf: EndpointRead,
): Promise<AttemptOutcome> {
  const stopped = (reason: string): AttemptOutcome => ({
    status: 'failed',
    httpStatus: null,
    responseBody: null,
    reason,
  })
  // A downgrade below Growth stops retries already under way too: nothing is dispatched.
  if (!hasCapability(tenant.plan, 'webhooks')) return stopped('entitlement_blocked')
  const endpoint = await readEndpointOf({ tenant, endpointId: delivery.endpointId })
  if (!endpoint || !isDeliverable(endpoint)) return stopped('endpoint_inactive')
  const t = Math.floor(Date.now() / 1000)
  const secrets = await Promise.all(
    signingSealedSecrets(endpoint, nowIso()).map((sealed) =>
      open(sealed, signingSecretOf(tenant, endpoint.id)),
    ),
  )
  const result = await sendOutbound({
    url: endpoint.url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': delivery.event,
      'x-service-delivery': delivery.envelopeId,
      ...signatureHeaders(secrets, delivery.envelopeId, t, delivery.payload),
    },
    body: Buffer.from(delivery.payload, 'utf8'),
    timeoutMs: config.webhookTimeoutMs,
    guard: guard(),
    maxResponseBytes: RESPONSE_BODY_LIMIT,
  })
  const ok = result.kind === 'response' && result.status >= 200 && result.status < 300
  return {
    status: ok ? 'delivered' : statusAfterFailure(attempt, MAX_ATTEMPTS),
    httpStatus: result.kind === 'response' ? result.status : null,
    responseBody: result.kind === 'response' ? result.body : null,
    reason: ok ? null : result.kind === 'response' ? `http_${result.status}` : result.reason,
  }
}

async function queueNextAttempt(msg: WebhookMessage): Promise<void> {
  const delay = retryDelay(msg.attempt, config.webhookRetryDelays)
  if (delay === undefined) return
  await sendMessage(
    config.webhooksQueueUrl,
    { ...msg, attempt: msg.attempt + 1 } satisfies WebhookMessage,
    delay,
  )
}

export function getDeliveryView(tenant: TenantContext, id: string): Promise<WebhookDelivery | undefined> {
  return getDelivery(tenant, id)
}

export function listDeliveriesPage(tenant: TenantContext, q: DeliveryPageQuery) {
  return listStoredDeliveriesPage(tenant, q)
}

export interface DeliveryFilter {
  readonly status?: DeliveryStatus
  readonly event?: string
}

export async function listDeliveries(tenant: TenantContext, f: DeliveryFilter): Promise<WebhookDelivery[]> {
  return (await listStoredDeliveries(tenant))
    .filter((d) => (!f.status || d.status === f.status) && (!f.event || d.event === f.event))
    .sort(newestFirst)
}

/**
 * Retry now: a new delivery (retryCopy), queued; the original row is left as it is. Refused for a
 * deleted endpoint. Written to the audit log.
 */
export async function retryNow(
  tenant: TenantContext,
  deliveryId: string,
  actor: string,
  at = nowIso(),
): Promise<WebhookDelivery> {
  const original = await getDelivery(tenant, deliveryId)
  if (!original) throw new NotFoundError('webhook_delivery')
  requireCapability(tenant.plan, 'webhooks')
  const endpoint = await getEndpoint(tenant, original.endpointId)
  if (!endpoint || endpoint.deletedAt !== null) {
    throw new RuleViolationError('webhook.endpoint_inactive', 'The endpoint of this delivery was deleted')
  }
  const copy = retryCopy(original, randomUUID(), at)
  // The worker's claim writes the copy's row, as every delivery's (decision 0028): a message that
  // cannot be sent leaves nothing behind.
  await sendMessage(config.webhooksQueueUrl, {
    tenantId: tenant.id,
    deliveryId: copy.id,
    attempt: 1,
    endpointId: copy.endpointId,
    delivery: { createdAt: at, retryOf: original.id },
  } satisfies WebhookMessage)
  await writeAudit(tenant, {
    action: 'webhook.retry',
    actor,
    details: { deliveryId: original.id, newDeliveryId: copy.id },
    createdAt: at,
  })
  return copy
}
