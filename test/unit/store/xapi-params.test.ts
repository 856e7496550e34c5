import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import type { LrsConnection } from '../../../shared/domain/xapi/connection.ts'
import type { StatementDelivery } from '../../../shared/domain/xapi/delivery.ts'
import { connectionParams, failedFor, statements } from '../../../shared/store/deliveries/xapi-store.ts'
import { cond } from '../../../shared/store/core/expression.ts'
import { rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'

const connection: LrsConnection = {
  id: 'c1',
  endpoint: 'https://lrs.example.com/xapi',
  key: 'k',
  sealedSecret: 'sealed',
  identityMode: 'anonymous',
  connectedAt: at,
  updatedAt: at,
}

const statement: StatementDelivery = {
  id: 's1',
  eventId: 'ev1',
  connectionId: 'c1',
  madeFor: { endpoint: 'https://lrs.example.com/xapi', identityMode: 'anonymous' },
  verb: 'completed',
  objectId: 'https://acme.example.com/xapi/activities/module/m1',
  userId: 'u1',
  enrollmentId: 'en1',
  status: 'pending',
  attempts: 0,
  httpStatus: null,
  reason: null,
  body: '{"id":"s1"}',
  manualRetries: 0,
  createdAt: at,
  updatedAt: at,
  attemptRecorded: true,
}

describe('Record-store connection params', () => {
  it('reads the one connection of the tenant strongly consistent (a disconnect stops the next attempt)', () => {
    expect(connectionParams.get(tenant)).toEqual({
      Key: { pk: 'T#t1', sk: 'LRS#CONNECTION' },
      ConsistentRead: true,
    })
  })

  it('saves a first connection only if none is saved, and deletes it returning what was there', () => {
    // Act
    const save = connectionParams.save(tenant, connection, undefined)
    const del = connectionParams.delete(tenant)

    // Assess
    expect(save.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'LRS#CONNECTION',
      type: 'lrs_connection',
      sealed_secret: 'sealed',
      identity_mode: 'anonymous',
    })
    expect(rendered(save.ConditionExpression, save)).toBe('attribute_not_exists(pk)')
    expect(del).toEqual({ Key: { pk: 'T#t1', sk: 'LRS#CONNECTION' }, ReturnValues: 'ALL_OLD' })
  })

  it('saves over the connection read only while it is unchanged', () => {
    // Act
    const later = '2026-03-02T10:00:00.000Z'
    const save = connectionParams.save(tenant, { ...connection, updatedAt: later }, connection)

    // Assess
    expect(save.Item.updated_at).toBe(later)
    expect(rendered(save.ConditionExpression, save)).toBe(`updated_at = "${at}"`)
  })
})

describe('Statement delivery-log params', () => {
  it('inserts a row only if absent, with what it was made for and its 90-day expiry', () => {
    // Act
    const p = statements.params.insert(tenant, statement)

    // Assess
    expect(p.Item).toMatchObject({
      pk: 'T#t1',
      sk: 'XAPISTMT#s1',
      type: 'xapi_statement',
      made_for_endpoint: 'https://lrs.example.com/xapi',
      made_for_identity_mode: 'anonymous',
      manual_retries: 0,
      ttl: Date.parse(at) / 1000 + 90 * 86_400,
    })
    expect(p.Item).not.toHaveProperty('gsi1pk')
    expect(rendered(p.ConditionExpression, p)).toBe('attribute_not_exists(pk)')
  })

  it('records an outcome with no attribute of its own', () => {
    // Act
    const p = statements.params.record(
      tenant,
      's1',
      1,
      { status: 'failed', httpStatus: 400, reason: 'http_400' },
      at,
    )

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t1', sk: 'XAPISTMT#s1' })
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET status = "failed", http_status = 400, reason = "http_400", attempt_state = "recorded", updated_at = "${at}"`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe('(status = "pending") AND (attempts = 1)')
  })

  it('re-queues a failed row for the current connection with a fresh count, refused unless failed', () => {
    // Act
    const p = statements.params.requeue(
      tenant,
      's1',
      { set: { connection_id: 'c2' }, add: { manual_retries: 1 } },
      at,
    )

    // Assess
    expect(rendered(p.UpdateExpression, p)).toBe(
      `SET status = "pending", attempts = 0, http_status = null, reason = null, connection_id = "c2", updated_at = "${at}" ADD manual_retries 1`,
    )
    expect(rendered(p.ConditionExpression, p)).toBe('status = "failed"')
  })

  it('looks for failed rows made for the connected store on the log key range, never a scan', () => {
    // Act
    const p = statements.params.list(tenant, failedFor(statement.madeFor))

    // Assess
    expect(rendered(p.KeyConditionExpression, p)).toBe('(pk = "T#t1") AND (begins_with(sk, "XAPISTMT#"))')
    expect(rendered(p.FilterExpression, p)).toBe(
      '(status = "failed") AND (made_for_endpoint = "https://lrs.example.com/xapi") AND (made_for_identity_mode = "anonymous")',
    )
  })

  it('reads only the keys of a learner rows for erasure', () => {
    // Act
    const p = statements.params.list(tenant, cond.eq('user_id', 'u1'), ['pk', 'sk'])

    // Assess
    expect(rendered(p.FilterExpression, p)).toBe('user_id = "u1"')
    expect(rendered(p.ProjectionExpression, p)).toBe('pk, sk')
  })

  it('decodes rows from before statements named what they were made for', () => {
    // Prepare
    const { made_for_endpoint, made_for_identity_mode, manual_retries, ...older } = statements.params.insert(
      tenant,
      statement,
    ).Item

    // Act
    const row = statements.decode(older)

    // Assess
    expect([made_for_endpoint, made_for_identity_mode, manual_retries]).toEqual([
      statement.madeFor.endpoint,
      statement.madeFor.identityMode,
      0,
    ])
    expect(row).toEqual({ ...statement, madeFor: { endpoint: '', identityMode: '' } })
  })
})
