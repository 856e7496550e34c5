import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { auditPutParams, auditQueryParams } from '../../../shared/store/tenants/audit-store.ts'
import { contactPutParams, contactQueryParams } from '../../../shared/store/tenants/contact-store.ts'
import { outboxQueryParams, toOutboxEntry } from '../../../shared/store/outbox/outbox-store.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'
const event = { id: 'e1', event: 'user.created', createdAt: at, data: { userId: 'u1' } } as const

describe('Functions: outbox reads', () => {
  it('reads the tenant outbox strongly consistent', () => {
    const params = outboxQueryParams(tenant)
    expect(readable('KeyConditionExpression', params)).toBe('(pk = "T#t1") AND (begins_with(sk, "OUTBOX#"))')
    expect(params.ConsistentRead).toBe(true)
  })
})

describe('Function: toOutboxEntry', () => {
  const item = {
    pk: 'T#t1',
    sk: `OUTBOX#${at}#e1`,
    type: 'event',
    tenant_id: 't1',
    event_id: 'e1',
    event: 'user.created',
    created_at: at,
    data: { userId: 'u1' },
  }

  it('reads an older item without recorded_at at its event time', () => {
    expect(toOutboxEntry(item)).toEqual({
      kind: 'event',
      key: { pk: 'T#t1', sk: `OUTBOX#${at}#e1` },
      tenantId: 't1',
      recordedAt: at,
      // Written before the events said whether their enrollment has an AGS link: not said.
      scoresLinked: null,
      event,
    })
    expect(toOutboxEntry({ ...item, recorded_at: 'later' })).toMatchObject({ recordedAt: 'later' })
  })

  it('refuses an item that is no event of the catalog nor a notification, naming its key', () => {
    expect(() => toOutboxEntry({ ...item, event: 'user.exploded' })).toThrow(MalformedItem)
    expect(() => toOutboxEntry({ ...item, type: 'notification' })).toThrow(`(T#t1 / OUTBOX#${at}#e1)`)
    expect(() => toOutboxEntry({ ...item, type: 'receipt' })).toThrow(`(T#t1 / OUTBOX#${at}#e1)`)
  })
})

describe('Functions: audit and contact records', () => {
  it('writes audit records in time order in the tenant partition', () => {
    const params = auditPutParams(tenant, { action: 'a', actor: 'cli', details: {}, createdAt: at }, 'id1')
    expect(params.Item).toEqual({
      pk: 'T#t1',
      sk: `AUDIT#${at}#id1`,
      type: 'audit',
      action: 'a',
      actor: 'cli',
      details: {},
      created_at: at,
    })
    expect(readable('KeyConditionExpression', auditQueryParams(tenant))).toBe(
      '(pk = "T#t1") AND (begins_with(sk, "AUDIT#"))',
    )
  })

  it('keeps contact requests in the product partition for 180 days, read newest first', () => {
    const params = contactPutParams({
      id: 'c1',
      name: 'Ada',
      email: 'ada@example.com',
      company: null,
      subject: null,
      message: 'Hello',
      receivedAt: at,
    })
    expect(params.Item).toMatchObject({ pk: 'PLATFORM#CONTACT', sk: `CONTACT#${at}#c1` })
    expect(params.Item?.ttl).toBe(Date.parse(at) / 1000 + 180 * 86_400)
    // The partition also holds the requests' outbox notifications: only requests are read.
    expect(readable('KeyConditionExpression', contactQueryParams())).toBe(
      '(pk = "PLATFORM#CONTACT") AND (begins_with(sk, "CONTACT#"))',
    )
    expect(contactQueryParams().ScanIndexForward).toBe(false)
  })
})
