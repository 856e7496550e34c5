/**
 * `npx tsx bench/idempotency.ts` (part of `npm run bench`): what the Idempotency-Key record costs
 * (decision 0038) on a keyed POST (POST /api/v1/users): the DynamoDB calls on the record's key of a
 * first request and of its replay, beside the whole request's calls and those of the same POST
 * without the header. Starts its own stores in memory; records the `idempotency` section of
 * bench/results.json and asserts nothing.
 */
import { randomUUID } from 'node:crypto'
import { startBenchStores } from './bench-stores.ts'

interface Counted {
  readonly reads: number
  readonly writes: number
  readonly ops: string[]
}

async function main(): Promise<void> {
  const stores = await startBenchStores({ LMS_TENANT_CACHE_MS: '60000' })
  try {
    const { config } = await import('../shared/config.ts')
    const { createApiKey, createTenant } = await import('../shared/services/tenants/tenants-service.ts')
    const { handler: users } = await import('../functions/users/handler.ts')
    const { invoke } = await import('./invoke.ts')
    const { costOf } = await import('./call-summary.ts')
    const { wrapDynamoDbCalls } = await import('../test/helpers/dynamodb-calls.ts')
    const { recordSection } = await import('./results-file.ts')

    const tenant = await createTenant({ slug: 'bench-idem', plan: 'growth', kind: 'customer' })
    const { key } = await createApiKey(tenant, ['read', 'write'])
    const base = { host: `${tenant.slug}.${config.serviceHost}`, apiKey: key } as const
    const body = () => ({
      email: `i-${randomUUID()}@bench.example.com`,
      first_name: 'Ada',
      last_name: 'Key',
      role: 'learner',
    })

    // The calls whose key (or item) is an idempotency record, told apart by its sort key.
    let onRecord: string[] = []
    const isRecord = (input: Readonly<Record<string, unknown>>): boolean => {
      const k = (input.Key ?? input.Item) as { sk?: { S?: string } } | undefined
      return k?.sk?.S?.startsWith('IDEM#') ?? false
    }
    const unwrap = wrapDynamoDbCalls((next) => (operation, input) => {
      if (isRecord(input)) onRecord.push(operation)
      return next(operation, input)
    })
    const run = async (req: Parameters<typeof invoke>[1]) => {
      onRecord = []
      const { result, calls } = await invoke(users, req)
      const counted: Counted = {
        reads: onRecord.filter((op) => op === 'GetItem').length,
        writes: onRecord.filter((op) => op !== 'GetItem').length,
        ops: onRecord,
      }
      return { status: result.statusCode ?? 0, total: costOf(calls), record: counted }
    }

    // Warm: the tenant and the key are cached as on a warm container.
    await run({ ...base, method: 'GET', url: '/api/v1/users' })
    const plain = await run({ ...base, method: 'POST', url: '/api/v1/users', body: body() })
    const keyed = {
      ...base,
      method: 'POST',
      url: '/api/v1/users',
      body: body(),
      headers: { 'idempotency-key': randomUUID() },
    }
    const first = await run(keyed)
    const replay = await run(keyed)
    unwrap()

    const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
      `  ${name.padEnd(24)} ${r.status}  record: ${r.record.reads} read, ${r.record.writes} write (${r.record.ops.join(', ') || '-'}); ` +
      `whole request ${r.total.calls} calls, ${r.total.rcu} RCU, ${r.total.wcu} WCU`
    process.stdout.write(
      `${['idempotency (POST /api/v1/users, warm):', line('without the header', plain), line('first request', first), line('replay', replay)].join('\n')}\n`,
    )
    const figures: Record<string, number> = {}
    for (const [name, r] of [
      ['plain', plain],
      ['first', first],
      ['replay', replay],
    ] as const) {
      figures[`${name}.record.reads`] = r.record.reads
      figures[`${name}.record.writes`] = r.record.writes
      figures[`${name}.calls`] = r.total.calls
      figures[`${name}.rcu`] = r.total.rcu
      figures[`${name}.wcu`] = r.total.wcu
    }
    process.stdout.write(`\n${await recordSection('idempotency', figures)}\n`)
  } finally {
    await stores.stop()
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    )
    process.exit(1)
  },
)
