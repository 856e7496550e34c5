/**
 * Webhooks: endpoints (operator CLI), fan-out of outbox events into deliveries (the relay), the
 * delivery attempts (the worker), the deliveries view and retry-now.
 */
import { randomUUID } from 'node:crypto'
import { config } from '../../config.ts'
import { open, seal, type SealedFor } from '../../crypto/secret-box.ts'
import { NotFoundError, RuleViolationError, ValidationError } from '../../domain/errors.ts'
import { hasCapability, requireCapability } from '../../domain/plans/entitlements.ts'
import { newestFirst, statusAfterFailure } from '../../domain/attempts.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import {
  deliveryIdFor,
  isEventType,
  MAX_ATTEMPTS,
  newSigningSecret,
  RESPONSE_BODY_LIMIT,
  retryDelay,
  signature,
  type DeliveryStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../../domain/webhooks/webhook.ts'
import type { DomainEvent } from '../../domain/events.ts'
import { sendOutbound } from '../../net/outbound-http.ts'
import { checkTarget, UnsafeTargetError } from '../../net/ssrf-guard.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { oncePerBatch } from '../core/batch-reads.ts'
import { runQueuedAttempt } from './claimed-attempt.ts'
import { newDeliveryRow, relayedMessage, retryCopy, WebhookMessage } from './webhook-messages.ts'
import {
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
} from '../../store/deliveries/webhooks-store.ts'

const nowIso = () => new Date().toISOString()
const guard = () => ({ allowLoopback: config.allowLoopbackTargets })

/** A signing secret opens only on its own endpoint: copied onto another tenant's, it does not. */
const signingSecretOf = (tenant: TenantContext, endpointId: string): SealedFor => ({
  purpose: 'webhook-signing-secret',
  tenantId: tenant.id,
  recordId: endpointId,
})

export async function createEndpoint(
  tenant: TenantContext,
  url: string,
  events: readonly string[],
  at = nowIso(),
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  requireCapability(tenant.plan, 'webhooks')
  const unknown = events.find((e) => !isEventType(e))
  if (events.length === 0 || unknown !== undefined) {
    throw new ValidationError(
      'events',
      `events must list event types of the catalog${unknown ? `; ${unknown} is not one` : ''}`,
    )
  }
  try {
    await checkTarget(url, guard())
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw new ValidationError('url', `url: ${err.reason}`)
    throw err
  }
  const secret = newSigningSecret()
  const id = randomUUID()
  const endpoint: WebhookEndpoint = {
    id,
    url,
    events: [...new Set(events.filter(isEventType))],
    sealedSecret: await seal(secret, signingSecretOf(tenant, id)),
    createdAt: at,
    deletedAt: null,
  }
  await insertEndpoint(tenant, endpoint)
  return { endpoint, secret }
}

/** Endpoints stay listed and deletable whatever the plan. */
export async function listLiveEndpoints(tenant: TenantContext): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(tenant)).filter((e) => e.deletedAt === null)
}

export async function deleteEndpoint(tenant: TenantContext, id: string, at = nowIso()): Promise<string> {
  if (!(await deleteStoredEndpoint(tenant, id, at))) throw new NotFoundError('webhook_endpoint')
  return at
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
  const endpoints = (await liveEndpoints(tenant)).filter((e) => e.events.includes(event.event))
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
  if (!endpoint || endpoint.deletedAt !== null) return stopped('endpoint_inactive')
  const t = Math.floor(Date.now() / 1000)
  const result = await sendOutbound({
    url: endpoint.url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': delivery.event,
      'x-service-delivery': delivery.envelopeId,
      'x-service-signature': signature(
        await open(endpoint.sealedSecret, signingSecretOf(tenant, endpoint.id)),
        t,
        delivery.payload,
      ),
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
