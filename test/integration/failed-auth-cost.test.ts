/**
 * What an address past its failed-authentication limit costs the store: after the one failure a
 * container needs to learn that the window is full, nothing. This test process is such a fresh
 * container: it shares the store with the local gateway, which filled the window.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { handler } from '../../functions/users/handler.ts'
import { httpEvent, lambdaContext } from '../../local/lambda-event.ts'
import { generateKey } from '../../shared/domain/api-keys/key-format.ts'
import { failedAuthPerIp } from '../../shared/routes.ts'
import { wrapDynamoDbCalls } from '../helpers/dynamodb-calls.ts'
import { call, ownAddress } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

let unwatch: (() => void) | undefined

afterEach(() => {
  unwatch?.()
  unwatch = undefined
})

/** Runs `scenario` inside one fixed window of the limit; a run cut by the window's end runs again. */
async function inOneWindow<T>(scenario: () => Promise<T>): Promise<T> {
  const windowOf = () => Math.floor(Date.now() / 1000 / failedAuthPerIp.windowSeconds)
  for (;;) {
    const before = windowOf()
    const result = await scenario()
    if (windowOf() === before) return result
  }
}

describe('Rule: a blocked address costs no key read, a valid request nothing more', () => {
  it('refuses an address whose window another container filled after one key read, then with none (unauthenticated read flood)', async () => {
    // Prepare
    const t = await newTenant()
    const host = `${t.slug}.localhost`
    /** Each DynamoDB call this container sends: its operation and its key's partition. */
    const sent: { op: string; pk: string }[] = []
    unwatch = wrapDynamoDbCalls((next) => async (op, input) => {
      sent.push({ op, pk: String((input as { Key?: { pk?: { S?: string } } }).Key?.pk?.S) })
      return next(op, input)
    })
    const keyReadCount = () => sent.filter((c) => c.op === 'GetItem' && c.pk.startsWith('APIKEY#')).length
    /** One request to this container's users handler: its status and the key reads it made. */
    const inProcess = async (key: string, sourceIp: string) => {
      const before = keyReadCount()
      const { event } = httpEvent({
        method: 'GET',
        url: '/api/v1/users',
        headers: { host, authorization: `Bearer ${key}` },
        sourceIp,
        protocol: 'HTTP/1.1',
        apiId: 'test',
      })
      const result = await handler(event, lambdaContext('lms-users', event.requestContext.requestId))
      return { status: result.statusCode, keyReads: keyReadCount() - before }
    }
    const windowWrites = () => sent.filter((c) => c.pk.startsWith('RLIP#')).length

    // Act
    const { filled, learning, blocked, validKey, elsewhere } = await inOneWindow(async () => {
      const from = ownAddress()
      const filled = []
      for (let i = 0; i < failedAuthPerIp.limit; i++) {
        filled.push(
          (await call('GET', '/api/v1/users', { host, key: generateKey('live').key, localAddress: from }))
            .status,
        )
      }
      const learning = await inProcess(generateKey('live').key, from)
      const blocked = await inProcess(generateKey('live').key, from)
      const validKey = await inProcess(t.adminKey, from)
      const writesBefore = windowWrites()
      const fromElsewhere = await inProcess(t.adminKey, ownAddress())
      const elsewhere = { ...fromElsewhere, windowWrites: windowWrites() - writesBefore }
      return { filled, learning, blocked, validKey, elsewhere }
    })

    // Assess
    expect(filled).toEqual(filled.map(() => 401))
    expect(learning).toEqual({ status: 429, keyReads: 1 })
    expect(blocked).toEqual({ status: 429, keyReads: 0 })
    expect(validKey).toEqual({ status: 429, keyReads: 0 })
    // A valid request pays nothing for the limit: its one key read, and no address window.
    expect(elsewhere).toEqual({ status: 200, keyReads: 1, windowWrites: 0 })
  })
})
