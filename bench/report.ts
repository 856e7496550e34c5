/** The printed report: the same figures as bench/results.json, laid out for reading. */
import type { BenchResults } from './benchmark.ts'
import { enrollmentsSummary, formatEnrollments } from './enrollments-report.ts'
import { round } from './stats.ts'

const pad = (s: string | number, n: number) => String(s).padEnd(n)
const lpad = (s: string | number, n: number) => String(s).padStart(n)
const kib = (bytes: number) => `${round(bytes / 1024, 1)} KiB`

function share(counts: Record<string, number>, total: number): string {
  return Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ${n} (${round((n / total) * 100, 1)}%)`)
    .join(', ')
}

export function formatReport(r: BenchResults, totalMs: number): string {
  const lines: string[] = []
  const h = (title: string) => lines.push('', title, '-'.repeat(title.length))
  lines.push('LMS API benchmark', '=================')
  lines.push(
    `node ${r.environment.node} on ${r.environment.platform}; LMS_TENANT_CACHE_MS=${r.environment.tenantCacheMs}`,
  )
  lines.push(`store: ${r.environment.store}`)

  h('1. Seed')
  const s = r.seed
  lines.push(
    `${s.users} users (${s.items} items) in ${round(s.ms / 1000, 2)} s = ${Math.round(s.usersPerSecond)} users/s; ` +
      `${s.batchWriteCalls} BatchWriteItem calls, ${round(s.wcu, 1)} WCU`,
  )
  lines.push(`roles: ${share(s.roles, s.users)}`)
  lines.push(`user types: ${share(s.userTypes, s.users)}`)
  lines.push(`active: ${s.active} (${round((s.active / s.users) * 100, 1)}%)`)

  h('2. DynamoDB calls per request (one warm request each)')
  for (const sc of r.scenarios) {
    lines.push('', `${sc.name}: ${sc.request}`)
    lines.push(
      `  status ${sc.status}, ${sc.items ?? '-'} items, meta.total ${sc.metaTotal ?? '-'}` +
        `${sc.expectedTotal === null ? '' : ` (seeded: ${sc.expectedTotal})`}, ${sc.ms} ms`,
    )
    sc.calls.forEach((c, i) => {
      lines.push(
        `  ${lpad(i + 1, 3)}. ${pad(c.op, 11)} ${lpad(round(c.rcu, 2), 7)} RCU ${lpad(round(c.wcu, 2), 6)} WCU  ${c.label}`,
      )
    })
    lines.push(
      `  total: ${sc.totals.calls} calls, ${sc.sequentialRoundTrips} sequential round trips, ${sc.totals.rcu} RCU, ${sc.totals.wcu} WCU ` +
        `(handler: ${sc.handlerTotals.calls} calls, ${sc.handlerTotals.rcu} RCU)`,
    )
  }
  lines.push('')
  for (const t of r.targets)
    lines.push(`TARGET ${t.met ? 'MET' : 'NOT MET'}: ${t.target} (actual: ${t.actual})`)

  h('3. Handler time per request (in process, ms)')
  for (const c of r.handlerTime) {
    lines.push('', `${c.name} (${c.iterations} each)`)
    lines.push(
      `  ${pad('', 6)} ${lpad('median', 8)} ${lpad('p95', 8)} ${lpad('mean', 8)} ${lpad('db calls/req', 13)}`,
    )
    for (const [label, d] of [
      ['full', c.full],
      ['bare', c.bare],
    ] as const) {
      lines.push(
        `  ${pad(label, 6)} ${lpad(d.median, 8)} ${lpad(d.p95, 8)} ${lpad(d.mean, 8)} ${lpad(d.dbCallsPerRequest, 13)}`,
      )
    }
    lines.push(`  overhead (full - bare): median ${c.overhead.median} ms, p95 ${c.overhead.p95} ms`)
  }

  h(
    '4. Lambda bundles, route groups and workers (esbuild with lib/bundling.ts, as the CDK builds them) and cold import',
  )
  lines.push(
    `  ${pad('bundle', 12)} ${lpad('bundle', 11)} ${lpad('limit', 10)} ${lpad('map', 11)}  ${pad('DynamoDB', 8)}  cold import median (runs), x bare`,
  )
  const bare = r.bundles.bare
  lines.push(
    `  ${pad('(bare)', 12)} ${lpad(kib(bare.bytes), 11)} ${lpad('', 10)} ${lpad('', 11)}  ${pad('yes', 8)}  ` +
      `${bare.coldImportMedianMs} ms (${bare.coldImportMs.join(', ')}); CPU ${bare.coldImportCpuMedianMs} ms`,
  )
  for (const b of r.bundles.groups) {
    lines.push(
      `  ${pad(b.group, 12)} ${lpad(kib(b.bytes), 11)} ${lpad(kib(b.limitBytes), 10)} ${lpad(kib(b.sourceMapBytes), 11)}  ` +
        `${pad(b.awsClient ? 'yes' : 'no', 8)}  ${b.coldImportMedianMs} ms (${b.coldImportMs.join(', ')}), ${b.coldImportRatio}x` +
        `; CPU ${b.coldImportCpuMedianMs} ms, ${b.coldImportCpuRatio}x`,
    )
    lines.push(`  ${pad('', 12)} largest: ${b.largest.map((p) => `${p.name} ${kib(p.bytes)}`).join(', ')}`)
  }

  h('5. Enrollments (bulk via the enrollments handler; transcript via the users handler)')
  lines.push(...formatEnrollments(r.enrollments))

  h('Summary')
  for (const sc of r.scenarios) {
    lines.push(
      `  ${sc.name.padEnd(63)} ${sc.status}, ${sc.totals.calls} calls (${sc.sequentialRoundTrips} sequential), ${sc.totals.rcu} RCU, ${sc.totals.wcu} WCU, ${sc.ms} ms`,
    )
  }
  lines.push(...enrollmentsSummary(r.enrollments))
  for (const t of r.targets)
    lines.push(`  TARGET ${t.met ? 'MET' : 'NOT MET'}: ${t.target} (actual: ${t.actual})`)

  lines.push('', `total benchmark time: ${round(totalMs / 1000, 1)} s`)
  return lines.join('\n')
}
