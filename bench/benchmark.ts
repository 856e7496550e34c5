/**
 * The benchmark's steps, in order, against stores that are already running. Imported by run.ts
 * only after the environment is set, since every shared/ and functions/ module reads config at
 * import.
 */
import { handler as enrollmentsHandler } from '../functions/enrollments/handler.ts'
import { handler as plansHandler } from '../functions/plans/handler.ts'
import { handler as usersHandler } from '../functions/users/handler.ts'
import { config } from '../shared/config.ts'
import { routeGroups } from '../shared/routes.ts'
import { bundleTargets, measureBundles, type BundlesResult } from './bundles.ts'
import { checkTargets, runScenarios, type ScenarioResult, type TargetResult } from './db-costs.ts'
import { runEnrollments, type EnrollmentsResult } from './enrollments.ts'
import { runHandlerTimes, type Comparison } from './handler-time.ts'
import { seedTenant, type SeedReport } from './seed.ts'

export interface BenchOptions {
  readonly users: number
  readonly timingIterations: { readonly users: number; readonly plans: number }
  readonly coldImportRuns: number
  readonly dynamoEndpoint: string
  /** Called as each step starts, so a long run shows progress. */
  readonly progress: (step: string) => void
}

export interface BenchResults {
  readonly environment: {
    readonly node: string
    readonly platform: string
    readonly tenantCacheMs: number
    readonly store: string
  }
  readonly seed: SeedReport
  readonly scenarios: readonly ScenarioResult[]
  readonly targets: readonly TargetResult[]
  readonly handlerTime: readonly Comparison[]
  readonly bundles: BundlesResult
  readonly enrollments: EnrollmentsResult
}

export async function runBenchmark(options: BenchOptions): Promise<BenchResults> {
  options.progress(`seeding a growth tenant with ${options.users} users`)
  const { seeded, report: seed } = await seedTenant(options.users, config.serviceHost)
  options.progress('DynamoDB cost per scenario')
  const scenarios = await runScenarios(usersHandler, seeded)
  options.progress('handler time per request')
  const handlerTime = await runHandlerTimes(
    { users: usersHandler, plans: plansHandler },
    seeded,
    options.timingIterations,
  )
  options.progress(`bundling ${routeGroups.join(', ')} and a bare DynamoDB handler, timing cold imports`)
  const bundles = await measureBundles(routeGroups, options.dynamoEndpoint, options.coldImportRuns)
  // Last, so the sections before it measure the same table as they always did.
  options.progress('enrollments: bulk through the enrollments handler, then a 500-course transcript')
  const enrollments = await runEnrollments({ enrollments: enrollmentsHandler, users: usersHandler }, seeded)
  return {
    environment: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      tenantCacheMs: config.tenantCacheMs,
      store: 'DynamoDB Local (in memory); capacity as DynamoDB Local reports it',
    },
    seed,
    scenarios,
    targets: [...checkTargets(scenarios), ...bundleTargets(bundles)],
    handlerTime,
    bundles,
    enrollments,
  }
}
