/**
 * What the workers log when something throws: the error's name and message next to the ids, so an
 * operator can tell a secret that cannot be opened from a bug; never a secret, a body or a stack.
 * The workers run in-process against the test stack's store, their log lines captured from stdout.
 */
import { randomUUID } from 'node:crypto'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { handler as webhookWorker } from '../../functions/workers/webhook-delivery/handler.ts'
import { handler as xapiWorker } from '../../functions/workers/xapi-delivery/handler.ts'
import { connect } from '../../shared/services/deliveries/lrs-connection-service.ts'
import { createEndpoint, getDeliveryView } from '../../shared/services/deliveries/webhooks-service.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { keys, type Key } from '../../shared/store/core/keys.ts'
import { deliveries } from '../../shared/store/deliveries/webhooks-store.ts'
import { getStatement, insertStatement } from '../../shared/store/deliveries/xapi-store.ts'
import { sqsEvent, sqsRecord } from '../helpers/sqs-event.ts'
import { newTenant } from '../helpers/tenants.ts'

// The test stack runs silent; these tests read the lines a deployed worker writes.
vi.mock('../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/config.ts')>()
  return { ...actual, config: { ...actual.config, logLevel: 'info' } }
})

let stdout: MockInstance<typeof process.stdout.write>
beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
})
afterEach(() => {
  stdout.mockRestore()
})

/** The JSON log lines written at level error. */
function errorLines(): Record<string, unknown>[] {
  return stdout.mock.calls
    .map(([chunk]) => String(chunk))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 'error')
}

const message = (body: string, messageId?: string) =>
  sqsEvent(sqsRecord(body, { ...(messageId ? { messageId } : {}), queue: 'lms-webhooks' }))

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

const PERSONAL = 'ada.private@example.com'

describe('Workers: the log line of an attempt that threw', () => {
  it('names the webhook attempt, the error and its message, never the secret or the payload; the last attempt fails the delivery', async () => {
    // Prepare: a delivery whose fourth attempt failed, with no queue message behind it
    const t = await newTenant()
    const { endpoint, secret } = await createEndpoint(t.tenant, 'http://127.0.0.1:9/hook', ['user.created'])
    await corruptSealedSecret(keys.webhookEndpoint(t.tenant, endpoint.id))
    const at = new Date().toISOString()
    const id = randomUUID()
    await deliveries.insert(t.tenant, {
      id,
      endpointId: endpoint.id,
      eventId: randomUUID(),
      event: 'user.created',
      status: 'pending',
      attempts: 4,
      httpStatus: 503,
      responseBody: 'busy',
      reason: 'http_503',
      payload: JSON.stringify({ id, event: 'user.created', data: { email: PERSONAL } }),
      envelopeId: id,
      retryOf: null,
      createdAt: at,
      updatedAt: at,
      attemptRecorded: true,
    })

    // Act
    const result = await webhookWorker(
      message(JSON.stringify({ tenantId: t.tenant.id, deliveryId: id, attempt: 5 })),
    )

    // Assess: handled (not left to SQS), recorded, logged by name and message
    expect(result).toEqual({ batchItemFailures: [] })
    expect(await getDeliveryView(t.tenant, id)).toMatchObject({
      status: 'failed',
      attempts: 5,
      reason: 'secret_unreadable',
    })
    const lines = errorLines()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      tenantId: t.tenant.id,
      deliveryId: id,
      attempt: 5,
      errorName: 'SealedValueError',
    })
    expect(lines[0]?.errorMessage).toEqual(expect.stringMatching(/\S/))
    const raw = JSON.stringify(lines)
    expect(raw).not.toContain(PERSONAL)
    expect(raw).not.toContain(secret)
    expect(raw).not.toMatch(/\.ts:\d|\n\s+at /)
  })

  it('names the statement attempt, the error and its message, never the password or the statement; the last attempt fails it', async () => {
    // Prepare: a statement whose fourth attempt failed, with no queue message behind it
    const t = await newTenant()
    const password = `lrs-password-${randomUUID()}`
    const connection = await connect(
      t.tenant,
      { endpoint: 'http://127.0.0.1:9/xapi', key: 'k', secret: password },
      'test',
    )
    await corruptSealedSecret(keys.lrsConnection(t.tenant))
    const at = new Date().toISOString()
    const id = randomUUID()
    await insertStatement(t.tenant, {
      id,
      eventId: randomUUID(),
      connectionId: connection.id,
      madeFor: { endpoint: connection.endpoint, identityMode: connection.identityMode },
      verb: 'completed',
      objectId: `https://example.com/xapi/activities/module/${randomUUID()}`,
      userId: randomUUID(),
      enrollmentId: randomUUID(),
      status: 'pending',
      attempts: 4,
      httpStatus: 503,
      reason: 'http_503',
      body: JSON.stringify({ id, actor: { mbox: `mailto:${PERSONAL}` } }),
      manualRetries: 0,
      createdAt: at,
      updatedAt: at,
      attemptRecorded: true,
    })

    // Act
    const result = await xapiWorker(
      message(JSON.stringify({ tenantId: t.tenant.id, statementId: id, attempt: 5 })),
    )

    // Assess
    expect(result).toEqual({ batchItemFailures: [] })
    expect(await getStatement(t.tenant, id)).toMatchObject({
      status: 'failed',
      attempts: 5,
      reason: 'secret_unreadable',
    })
    const lines = errorLines()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      tenantId: t.tenant.id,
      statementId: id,
      attempt: 5,
      errorName: 'SealedValueError',
    })
    expect(lines[0]?.errorMessage).toEqual(expect.stringMatching(/\S/))
    const raw = JSON.stringify(lines)
    expect(raw).not.toContain(PERSONAL)
    expect(raw).not.toContain(password)
    expect(raw).not.toMatch(/\.ts:\d|\n\s+at /)
  })

  it.each([
    ['webhook', webhookWorker],
    ['statement', xapiWorker],
  ])('names a %s message it cannot read by the error and its message, never its body', async (_, worker) => {
    // Act
    const result = await worker(message(`{"email":"${PERSONAL}"`, 'unreadable'))

    // Assess: left to SQS (and its DLQ), logged without the body
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'unreadable' }] })
    const lines = errorLines()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ messageId: 'unreadable' })
    expect(lines[0]?.errorName).toEqual(expect.stringMatching(/\S/))
    expect(lines[0]?.errorMessage).toEqual(expect.stringMatching(/\S/))
    expect(JSON.stringify(lines)).not.toContain(PERSONAL)
  })
})
