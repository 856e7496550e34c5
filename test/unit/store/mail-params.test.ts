import { describe, expect, it } from 'vitest'
import { newNotification } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  MAIL_CLAIM_LEASE_MS,
  markerParams,
  markerPartition,
  recipientMarkerKey,
  sinkQueryParams,
  tenantContactsQueryParams,
} from '../../../shared/store/deliveries/mail-store.ts'
import { relayParams, toOutboxEntry } from '../../../shared/store/outbox/outbox-store.ts'
import { contactNotificationPut, notificationPut } from '../../../shared/store/outbox/outbox-items.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const ref = { partition: 'T#t1', notificationId: 'n1', recipientKey: 'u1' }

describe('Functions: mail markers', () => {
  it('claims a recipient when unmarked, or when a sending claim’s lease ran out', () => {
    const p = markerParams.claim(ref, 'tok', at)

    expect(p.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'MAILSENT#n1#u1',
      status: 'sending',
      token: 'tok',
      lease_until: new Date(Date.parse(at) + MAIL_CLAIM_LEASE_MS).toISOString(),
    })
    expect(readable('ConditionExpression', p)).toBe(
      `(attribute_not_exists(pk)) OR ((status = "sending") AND (lease_until < "${at}"))`,
    )
  })

  it('lets only the claim’s holder mark it sent, rejected or released', () => {
    expect(readable('ConditionExpression', markerParams.sent(ref, 'tok', at, 'm1'))).toBe('token = "tok"')
    expect(readable('UpdateExpression', markerParams.sent(ref, 'tok', at, 'm1'))).toBe(
      `SET status = "sent", sent_at = "${at}", message_id = "m1" REMOVE lease_until`,
    )
    expect(readable('ConditionExpression', markerParams.rejected(ref, 'tok', at, 'MessageRejected'))).toBe(
      'token = "tok"',
    )
    expect(readable('ConditionExpression', markerParams.release(ref, 'tok'))).toBe(
      '(token = "tok") AND (status = "sending")',
    )
    expect(readable('ConditionExpression', markerParams.skipped(ref, 'user_inactive', at))).toBe(
      'attribute_not_exists(pk)',
    )
  })

  it('keys an address recipient by a digest, so markers hold no address, in the notification’s partition', () => {
    const key = recipientMarkerKey('email:ops@example.com')

    expect(key).toMatch(/^email-[0-9a-f]{32}$/)
    expect(key).not.toContain('example')
    expect(recipientMarkerKey('u1')).toBe('u1')
    expect(markerPartition(null)).toBe('PLATFORM#CONTACT')
    expect(markerPartition('t1')).toBe('T#t1')
  })
})

describe('Functions: recipients and the sink', () => {
  it('reads the tenant’s active owners and admins from its users index', () => {
    const p = tenantContactsQueryParams(tenant)

    expect(p.IndexName).toBe('gsi1')
    expect(readable('KeyConditionExpression', p)).toBe('gsi1pk = "T#t1#USERS"')
    expect(readable('FilterExpression', p)).toBe('(role IN ("owner", "admin")) AND (is_active = true)')
  })

  it('lists the sink newest first, filtered by tenant, address (any case) and template', () => {
    const p = sinkQueryParams({ tenantId: 't1', to: 'Ada@Example.com', template: 'usage_alert' })

    expect(p.ScanIndexForward).toBe(false)
    expect(readable('KeyConditionExpression', p)).toBe('pk = "MAILSINK"')
    expect(readable('FilterExpression', p)).toBe(
      '(tenant_id = "t1") AND (to_lower = "ada@example.com") AND (template = "usage_alert")',
    )
    expect(sinkQueryParams({}).FilterExpression).toBeUndefined()
  })
})

describe('Functions: outbox notifications', () => {
  const n = newNotification('usage_alert', null, { month: '2026-03' }, at)

  it('writes a notification into its pending index and reads it back with its key', () => {
    const item = notificationPut(tenant, n).Put?.Item ?? {}

    expect(item).toMatchObject({ pk: 'T#t1', gsi1pk: 'OUTBOX#PENDING', gsi1sk: `${at}#${n.id}` })
    expect(toOutboxEntry(item)).toEqual({
      kind: 'notification',
      key: { pk: 'T#t1', sk: `OUTBOX#${at}#${n.id}` },
      tenantId: 't1',
      notification: n,
    })
  })

  it('keeps a contact request’s notification in the platform’s contact partition, with no tenant', () => {
    const contact = newNotification('contact_request', null, {}, at, 'ops@example.com')
    const item = contactNotificationPut(contact).Put?.Item ?? {}

    expect(toOutboxEntry(item)).toMatchObject({
      key: { pk: 'PLATFORM#CONTACT', sk: `OUTBOX#${at}#${contact.id}` },
      tenantId: null,
      notification: { email: 'ops@example.com', userId: null },
    })
  })

  it('reads pending notifications older than the sweep age with the events, and takes a relayed one out of the index', () => {
    const pending = relayParams.pending(at, 100)
    const relayed = relayParams.markRelayed({ pk: 'T#t1', sk: 'OUTBOX#x' }, at)

    expect(readable('KeyConditionExpression', pending)).toBe(
      `(gsi1pk = "OUTBOX#PENDING") AND (gsi1sk < "${at}")`,
    )
    // Kept 30 days from the relay, as every outbox item (decision 0028).
    const ttl = Date.parse(at) / 1000 + 30 * 86_400
    expect(readable('UpdateExpression', relayed)).toBe(
      `SET relayed_at = "${at}", ttl = ${ttl} REMOVE gsi1pk, gsi1sk`,
    )
    expect(readable('ConditionExpression', relayed)).toBe('attribute_exists(gsi1pk)')
  })
})
