import { describe, expect, it } from 'vitest'
import { CLAIM_LEASE_MS } from '../../../shared/domain/attempts.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import type { WebhookDelivery, WebhookEndpoint } from '../../../shared/domain/webhooks/webhook.ts'
import {
  deliveries,
  deliveriesPageParams,
  decodeEndpoint,
  endpointParams,
  stopPendingParams,
} from '../../../shared/store/deliveries/webhooks-store.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'

const endpoint: WebhookEndpoint = {
  id: 'e1',
  url: 'https://hooks.example.com/in',
  events: ['user.created'],
  description: null,
  isActive: true,
  sealedSecret: 'sealed',
  previousSealedSecret: null,
  previousSecretExpiresAt: null,
  secretRotatedAt: null,
  createdAt: at,
  updatedAt: null,
  deletedAt: null,
}

const delivery: WebhookDelivery = {
  id: 'd1',
  endpointId: 'e1',
  eventId: 'ev1',
  event: 'user.created',
  status: 'pending',
  attempts: 0,
  httpStatus: null,
  responseBody: null,
  reason: null,
  payload: '{"id":"d1"}',
  envelopeId: 'd1',
  retryOf: null,
  createdAt: at,
  updatedAt: at,
  attemptRecorded: true,
}

describe('Webhook endpoint params', () => {
  it('reads an endpoint written before settings changes as active, never updated, never rotated', () => {
    // Prepare: the item as older code wrote it, without the attributes added since.
    const item: Record<string, unknown> = { ...endpointParams.insert(tenant, endpoint).Item }
    for (const added of ['is_active', 'description', 'updated_at', 'secret_rotated_at']) delete item[added]

    // Act
    const decoded = decodeEndpoint(item)

    // Assess
    expect(decoded).toEqual(endpoint)
  })

  it('rotates by moving the sealed secret aside, conditioned on the endpoint as read', () => {
    // Act
    const later = '2026-03-01T11:00:00.000Z'
    const p = endpointParams.change(tenant, endpoint, {
      ...endpoint,
      sealedSecret: 'sealed-2',
      previousSealedSecret: 'sealed',
      previousSecretExpiresAt: later,
      secretRotatedAt: at,
      updatedAt: at,
    })

    // Assess
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET sealed_secret = "sealed-2", previous_sealed_secret = "sealed", previous_secret_expires_at = "${later}", secret_rotated_at = "${at}", updated_at = "${at}"`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe(
      '(attribute_exists(pk)) AND (deleted_at = null) AND (attribute_not_exists(updated_at))',
    )
  })

  it('fails a pending delivery of a deleted endpoint unless an attempt of it is under way', () => {
    // Act
    const p = stopPendingParams(tenant, { ...delivery, attempts: 2 }, at)

    // Assess
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET status = "failed", reason = "endpoint_inactive", updated_at = "${at}"`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe(
      '(status = "pending") AND (attempts = 2) AND ((attribute_not_exists(attempt_state)) OR (attempt_state <> "claimed"))',
    )
  })

  it('inserts an endpoint in the tenant partition only if absent', () => {
    // Act
    const p = endpointParams.insert(tenant, endpoint)

    // Assess
    expect(p.Item).toMatchObject({ pk: 'T#t1', sk: 'WEBHOOK#e1', type: 'webhook_endpoint', deleted_at: null })
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_not_exists(pk)')
  })

  it('lists the tenant endpoints by their key prefix', () => {
    // Act
    const p = endpointParams.list(tenant)

    // Assess
    expect(rendered(p.KeyConditionExpression, p)).toBe('(pk = "T#t1") AND (begins_with(sk, "WEBHOOK#"))')
  })

  it('deletes a live endpoint by erasing its secret, refused when it is gone already', () => {
    // Act
    const p = endpointParams.delete(tenant, 'e1', at)

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'WEBHOOK#e1' })
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET deleted_at = "${at}", sealed_secret = "" REMOVE previous_sealed_secret, previous_secret_expires_at`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe('(attribute_exists(pk)) AND (deleted_at = null)')
  })
})

describe('Webhook delivery params (the delivery log)', () => {
  it('inserts a delivery only if absent, with its index entry and its 90-day expiry', () => {
    // Act
    const p = deliveries.params.insert(tenant, delivery)

    // Assess
    expect(p.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'WHDELIVERY#d1',
      type: 'webhook_delivery',
      status: 'pending',
      attempts: 0,
      payload: '{"id":"d1"}',
      gsi1pk: 'T#t1#WHDELIVERIES',
      gsi1sk: `${at}#d1`,
      ttl: Date.parse(at) / 1000 + 90 * 86_400,
    })
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_not_exists(pk)')
  })

  it('reads a delivery strongly consistent', () => {
    expect(deliveries.params.get(tenant, 'd1')).toEqual({
      Key: { pk: 'T#t1', sk: 'WHDELIVERY#d1' },
      ConsistentRead: true,
    })
  })

  it('claims attempt n from n - 1, or from a claim of n whose lease ran out', () => {
    // Act
    const p = deliveries.params.claim(tenant, 'd1', 3, at)

    // Assess
    const expired = new Date(Date.parse(at) - CLAIM_LEASE_MS).toISOString()
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'WHDELIVERY#d1' })
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET attempts = 3, attempt_state = "claimed", claimed_at = "${at}", updated_at = "${at}"`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe(
      `(status = "pending") AND ((attempts = 2) OR ((attempts = 3) AND (attempt_state = "claimed") AND (claimed_at < "${expired}")))`,
    )
  })

  it('claims attempt 1 of a delivery sent in its message by writing the whole row, new or claimable', () => {
    // Act
    const p = deliveries.params.claimNew(tenant, delivery, at)

    // Assess
    const expired = new Date(Date.parse(at) - CLAIM_LEASE_MS).toISOString()
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'WHDELIVERY#d1' })
    const update = rendered(p.UpdateExpression, p) ?? ''
    expect(update).toContain(`payload = ${JSON.stringify(delivery.payload)}`)
    expect(update).toContain(`envelope_id = "${delivery.envelopeId}"`)
    for (const set of [
      'attempts = 1',
      'attempt_state = "claimed"',
      `claimed_at = "${at}"`,
      'status = "pending"',
    ]) {
      expect(update).toContain(set)
    }
    expect(rendered(p.ConditionExpression, p)).toBe(
      `(attribute_not_exists(pk)) OR ((status = "pending") AND ((attempts = 0) OR ((attempts = 1) AND (attempt_state = "claimed") AND (claimed_at < "${expired}"))))`,
    )
  })

  it('records the outcome of the claimed attempt, the response body with it', () => {
    // Act
    const p = deliveries.params.record(
      tenant,
      'd1',
      3,
      { status: 'pending', httpStatus: 503, responseBody: 'busy', reason: 'http_503' },
      at,
    )

    // Assess
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET status = "pending", http_status = 503, reason = "http_503", response_body = "busy", attempt_state = "recorded", updated_at = "${at}"`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe('(status = "pending") AND (attempts = 3)')
  })

  it('reads the deliveries view from the by-creation index, filters as FilterExpression', () => {
    // Act
    const all = deliveriesPageParams(tenant, {})
    const some = deliveriesPageParams(tenant, { status: 'failed', event: 'user.created' })

    // Assess
    expect(all.IndexName).toBe('gsi1')
    expect(rendered(all.KeyConditionExpression, all)).toBe('gsi1pk = "T#t1#WHDELIVERIES"')
    expect(all.FilterExpression).toBeUndefined()
    expect(rendered(some.FilterExpression, some)).toBe('(status = "failed") AND (event = "user.created")')
  })

  it('decodes a stored delivery, and refuses a malformed one naming its key, never a value', () => {
    // Prepare
    const item = deliveries.params.insert(tenant, delivery).Item

    // Act
    const decoded = deliveries.decode({ ...item, attempt_state: 'claimed' })
    const malformed = (() => {
      try {
        return deliveries.decode({ ...item, payload: 42, status: 'lost' })
      } catch (err) {
        return err
      }
    })()

    // Assess
    expect(decoded).toEqual({ ...delivery, attemptRecorded: false })
    expect(malformed).toBeInstanceOf(MalformedItem)
    expect((malformed as Error).message).toMatch(/^Malformed webhook_delivery item \(T#t1 \/ WHDELIVERY#d1\)/)
    expect((malformed as Error).message).not.toContain('lost')
  })
})
