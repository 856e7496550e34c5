/**
 * A stack started with LMS_DATA_DIR=:memory: and the CLI pointed at it must seal and open secrets
 * with one key: a webhook secret the CLI sealed is opened by the stack's worker to sign deliveries.
 * Neither process is given LMS_ENCRYPTION_KEY (the suite's shared stack is; this one is not).
 */
import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { call } from '../helpers/http.ts'
import { startReceiver } from '../helpers/receiver.ts'
import { startStack } from '../helpers/stack.ts'
import { userBody } from '../helpers/tenants.ts'

describe('Local stack in memory: one key for every process of the stack', () => {
  it('signs and delivers to a webhook endpoint created with `lms` on a stack started with LMS_DATA_DIR=:memory:', async () => {
    const stack = await startStack({ LMS_DATA_DIR: ':memory:' })
    expect(stack.env.LMS_ENCRYPTION_KEY).toBeUndefined()
    const gateway = await stack.ready
    const receiver = await startReceiver()
    const slug = `mem-${randomBytes(4).toString('hex')}`
    expect((await stack.cli('tenant', 'create', '--slug', slug, '--plan', 'growth')).json).toMatchObject({
      slug,
    })
    const hook = await stack.cli(
      'webhook',
      'create',
      '--tenant',
      slug,
      '--url',
      `${receiver.url}/hook`,
      '--events',
      'user.created',
    )
    expect(hook.json).toMatchObject({ url: `${receiver.url}/hook` })
    const secret = String(hook.json.secret)
    const key = String(
      (await stack.cli('api-key', 'create', '--tenant', slug, '--scopes', 'read,write')).json.key,
    )

    const created = await call('POST', '/api/v1/users', {
      gateway,
      host: `${slug}.localhost`,
      key,
      body: userBody({ email: 'in-memory@example.com' }),
    })
    expect(created.status).toBe(201)

    const [got] = await receiver.waitFor(1, 90_000)
    const deliveries = await stack.cli('webhook', 'deliveries', '--tenant', slug)
    expect(got, `nothing delivered; the deliveries: ${JSON.stringify(deliveries.json)}`).toBeDefined()
    const raw = got?.raw.toString('utf8') ?? ''
    expect(JSON.parse(raw)).toMatchObject({ event: 'user.created', data: { email: 'in-memory@example.com' } })
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got?.headers['x-service-signature'])) ?? []
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex'))
  }, 300_000)
})
