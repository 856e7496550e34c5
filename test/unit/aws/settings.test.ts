/**
 * The clients' settings (shared/aws/settings.ts) against a server that takes the connection and
 * never answers: the call ends with the SDK's TimeoutError after its attempts, instead of waiting
 * for ever, and the store turns that into a retryable 503 (test/unit/store/fault-injection.test.ts).
 */
import { createServer, type Socket } from 'node:net'
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb'
import { afterAll, describe, expect, it } from 'vitest'
import { clientOptions, quickCall } from '../../../shared/aws/settings.ts'

const sockets = new Set<Socket>()
let attempts = 0
const silent = createServer((socket) => {
  attempts += 1
  sockets.add(socket)
})
await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
const address = silent.address()
const endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
afterAll(() => {
  for (const s of sockets) s.destroy()
  silent.close()
})

describe('AWS clients: time limits', () => {
  it('gives up on a server that never answers, after every attempt, with a TimeoutError', async () => {
    const options = clientOptions({ ...quickCall, maxAttempts: 2, requestTimeoutMs: 200 })
    const client = new DynamoDBClient({
      ...options,
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    })

    const call = client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }))

    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' })
    expect(attempts).toBe(2)
  })

  it('every kind of call has a limit on connecting and on its answer, and at least one retry', () => {
    const { requestHandler, maxAttempts, retryMode } = clientOptions(quickCall)
    expect(requestHandler.connectionTimeout).toBeGreaterThan(0)
    expect(requestHandler.requestTimeout).toBeGreaterThan(0)
    expect(requestHandler.throwOnRequestTimeout).toBe(true)
    expect(requestHandler.httpsAgent).toMatchObject({ keepAlive: true })
    expect(maxAttempts).toBeGreaterThan(1)
    expect(retryMode).toBe('standard')
  })
})
