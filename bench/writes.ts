/**
 * `npm run bench:writes` (also the last step of `npm run bench`): the write costs of every write
 * route (as DynamoDB Local reports them and as modelled-capacity.ts prices them by DynamoDB's rules),
 * the users-list scenarios (page 100 included) and the first pages of the course and enrollment
 * lists, on a seeded tenant of 10,000 users (`--users N` to change it). Starts its own stores in
 * memory, as run.ts does; prints the figures, records them as the `writes` section of
 * bench/results.json beside the committed run's, and asserts nothing.
 */
import { BENCH_TABLE, startBenchStores } from './bench-stores.ts'

function usersArg(): number {
  const i = process.argv.indexOf('--users')
  const n = i >= 0 ? Number(process.argv[i + 1]) : 10_000
  if (!Number.isInteger(n) || n < 1_000) throw new Error('--users takes a whole number of at least 1000')
  return n
}

async function main(): Promise<void> {
  const userCount = usersArg()
  const stores = await startBenchStores({
    LMS_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    LMS_TENANT_CACHE_MS: process.env.LMS_TENANT_CACHE_MS?.trim() || '5000',
  })
  try {
    const { config } = await import('../shared/config.ts')
    const { seedTenant } = await import('./seed.ts')
    const { runScenarios } = await import('./db-costs.ts')
    const { formatWriteCosts, runWriteCosts } = await import('./write-costs.ts')
    const { runListCosts } = await import('./list-costs.ts')
    const { publishedCourses } = await import('./course-fixtures.ts')
    const { installCapacityModel } = await import('./modelled-capacity.ts')
    await installCapacityModel(stores.dynamoEndpoint, BENCH_TABLE)
    const { handler: users } = await import('../functions/users/handler.ts')
    const { handler: groups } = await import('../functions/groups/handler.ts')
    const { handler: courses } = await import('../functions/courses/handler.ts')
    const { handler: enrollments } = await import('../functions/enrollments/handler.ts')

    process.stderr.write(`bench: seeding ${userCount} users\n`)
    const { seeded, report } = await seedTenant(userCount, config.serviceHost)
    const lines = [`seed: ${report.users} users, ${report.wcu} WCU`, '', 'users list (whole request):']
    const scenarios = await runScenarios(users, seeded)
    for (const s of scenarios) {
      lines.push(
        `  ${s.name.padEnd(45)} ${s.totals.calls} calls, ${s.totals.rcu} RCU (handler ${s.handlerTotals.rcu} RCU), ` +
          `${s.items ?? '-'} items, meta.total ${s.metaTotal ?? '-'} (seeded ${s.expectedTotal ?? '-'})`,
      )
    }
    process.stderr.write('bench: write routes\n')
    const writeCosts = await runWriteCosts({ users, groups, courses, enrollments }, seeded)
    lines.push('', 'write routes (handler; middlewares add 2 WCU):', ...formatWriteCosts(writeCosts))
    process.stderr.write('bench: list first pages\n')
    // 60 published courses (setup, not counted) beside the two the write routes left.
    await publishedCourses(seeded.tenant, 60, { title: (i) => `List course ${i}`, concurrency: 4 })
    lines.push('', 'list pages (whole request):')
    const listCosts = await runListCosts({ courses, enrollments }, seeded)
    for (const l of listCosts)
      lines.push(`  ${l.name.padEnd(45)} ${l.cost.calls} calls, ${l.cost.rcu} RCU  ${l.request}`)
    process.stdout.write(`${lines.join('\n')}\n`)
    if (userCount === 10_000) {
      const { recordSection } = await import('./results-file.ts')
      const figures: Record<string, number> = {}
      for (const s of scenarios) figures[`users list.${s.name}.rcu`] = s.totals.rcu
      for (const w of writeCosts) {
        figures[`${w.name}.modelled.wcu`] = w.modelled.wcu
        figures[`${w.name}.modelled.tableWcu`] = w.modelled.tableWcu
        figures[`${w.name}.modelled.indexWcu`] = w.modelled.indexWcu
        figures[`${w.name}.local.wcu`] = w.handler.wcu
      }
      for (const l of listCosts) figures[`lists.${l.name}.rcu`] = l.cost.rcu
      process.stdout.write(`\n${await recordSection('writes', figures)}\n`)
    }
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
