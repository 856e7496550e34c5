/**
 * Workers under fault: an exception after an attempt was claimed (here a sealed secret that cannot
 * be opened, written straight into the store) is that attempt's failure. It is recorded with a
 * reason the operator's views show and followed by the next attempt on the schedule (1 s apart in
 * tests), so the row ends failed after its fifth attempt instead of waiting pending for the DLQ.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { describe, expect, it } from 'vitest'
import { newEvent } from '../../shared/domain/events.ts'
import { connect } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { createEndpoint } from '../../shared/services/deliveries/webhooks-service.ts'
import { listLog } from '../../shared/services/deliveries/xapi-service.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { keys, type Key } from '../../shared/store/core/keys.ts'
import { appendEvent } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { startRecordStore } from '../helpers/record-store.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

/** Five attempts 1 s apart: seconds on an idle machine, minutes on a loaded one (only a hang hits this). */
const FIVE_ATTEMPTS_MS = 240_000

/** Fault injection: overwrites a stored sealed secret with a value no key opens. */
async function corruptSealedSecret(key: Key): Promise<void> {
  await doc.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET sealed_secret = :garbage',
      ExpressionAttributeValues: { ':garbage': 'garbage-that-no-key-opens' },
    }),
  )
}

describe('Workers: an exception after the claim fails the attempt, it does not strand the row', () => {
  it('fails a webhook delivery whose signing secret cannot be opened after five attempts, reason in the deliveries view', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    const { endpoint } = await createEndpoint(t.tenant, `${r.url}/hook`, ['user.created'])
    await corruptSealedSecret(keys.webhookEndpoint(t.tenant, endpoint.id))

    // Act
    expect((await t.api.post('/api/v1/users', userBody())).status).toBe(201)
    const view = await until(
      () => t.api.get('/api/v1/webhooks/deliveries'),
      (reply) => reply.body.data?.[0]?.status === 'failed',
      FIVE_ATTEMPTS_MS,
    )

    // Assess
    expect(view.status).toBe(200)
    expect(view.body.data).toHaveLength(1)
    expect(view.body.data[0]).toMatchObject({
      event: 'user.created',
      status: 'failed',
      attempts: 5,
      http_status: null,
      reason: 'secret_unreadable',
    })
    // Nothing unsigned ever left.
    expect(r.requests).toHaveLength(0)
  }, 480_000)

  it('fails a statement whose record-store password cannot be opened after five attempts, reason in `lms lrs log`', async () => {
    // Prepare
    const t = await newTenant()
    const user = await t.api.post('/api/v1/users', userBody())
    expect(user.status).toBe(201)
    const lrs = await startRecordStore()
    await connect(t.tenant, { endpoint: lrs.endpoint, key: 'k', secret: 's' }, 'test')
    await corruptSealedSecret(keys.lrsConnection(t.tenant))

    // Act: an activity event the relay turns into a statement
    await appendEvent(
      t.tenant,
      newEvent(
        'module.completed',
        {
          enrollmentId: crypto.randomUUID(),
          userId: user.body.data.id,
          courseId: crypto.randomUUID(),
          moduleId: crypto.randomUUID(),
          moduleType: 'video',
        },
        new Date().toISOString(),
      ),
    )
    await until(
      () => listLog(t.tenant),
      (rows) => rows[0]?.status === 'failed',
      FIVE_ATTEMPTS_MS,
    )
    const log = await lms('lrs', 'log', '--tenant', t.slug)

    // Assess
    expect(log.code).toBe(0)
    expect(log.json.data).toHaveLength(1)
    expect(log.json.data[0]).toMatchObject({ status: 'failed', attempts: 5, reason: 'secret_unreadable' })
    expect(lrs.requests).toHaveLength(0)
  }, 480_000)
})
