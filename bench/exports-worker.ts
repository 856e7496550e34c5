/**
 * One export job run by the export worker's handler in a process of its own (spawned by
 * bench/exports.ts, with the environment pointing at its stores), so the peak RSS measured is the
 * worker's alone: not the bench's, nor the in-process S3 emulator's that receives the file.
 * Prints one JSON line: the handler's wall time and the process's peak RSS.
 */
import type { SQSEvent } from 'aws-lambda'

/** A measured run as one JSON line (the parent bench reads it): wall and CPU time since `started`, peak RSS. */
function printRun(
  started: number,
  cpu: NodeJS.CpuUsage,
  fields: { failed: number; rssAtStartMb: number; bytes?: number; rows?: number },
): void {
  const used = process.cpuUsage(cpu)
  process.stdout.write(
    `${JSON.stringify({
      ms: Math.round(performance.now() - started),
      cpuMs: Math.round((used.user + used.system) / 1000),
      ...fields,
      // maxRSS is in kilobytes: the process's peak, module loading included.
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    })}\n`,
  )
}

/**
 * `--file-only <format> <rows>`: the file alone, from rows made here (no DynamoDB), through the
 * same writer and multipart upload: what the worker costs apart from reading the table.
 */
async function fileOnly(format: 'csv' | 'xlsx', count: number): Promise<void> {
  const { writeReportFile } = await import('../shared/exports/report-files.ts')
  const { uploadExportFile } = await import('../shared/store/files/export-files.ts')
  const { exportContentType } = await import('../shared/domain/reports/export-jobs.ts')
  // In batches of 1,000, as the worker hands the rows of its reads on.
  async function* rows() {
    let batch = []
    for (let i = 0; i < count; i++) {
      if (batch.length === 1000) {
        yield batch
        batch = []
      }
      const at = new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 60_000).toISOString()
      batch.push({
        enrollment_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        user_id: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        course_id: `20000000-0000-4000-8000-${String(i % 20).padStart(12, '0')}`,
        course_title: i % 5 === 0 ? `=Formula course ${i % 20}` : `Course ${i % 20}, "quoted" é`,
        completed_at: at,
        language: 'en',
        score: i % 7 === 0 ? null : (i % 100) + 0.5,
        pass_fail: i % 7 === 0 ? null : i % 3 === 0 ? ('fail' as const) : ('pass' as const),
        time_spent_seconds: i % 3600,
        certificate_id: i % 2 === 0 ? `30000000-0000-4000-8000-${String(i).padStart(12, '0')}` : null,
      })
    }
    if (batch.length > 0) yield batch
  }
  const started = performance.now()
  const cpu = process.cpuUsage()
  const file = await uploadExportFile(`bench/file-only.${format}`, exportContentType(format), (out) =>
    writeReportFile(format, 'completions', rows(), out),
  )
  printRun(started, cpu, { failed: 0, bytes: file.bytes, rssAtStartMb: 0 })
}

/**
 * `--reads-only <tenantId> <rows>`: the rows of the completions export read and made, no file:
 * what reading DynamoDB (Local) costs. `--baseline <tenantId>`: the worker's modules loaded and
 * one read made, nothing exported: what the process costs before any export.
 */
async function readsOnly(tenantId: string, count: number | undefined): Promise<void> {
  const { findTenantById } = await import('../shared/store/tenants/tenants-store.ts')
  await import('../functions/workers/export-build/handler.ts')
  const tenant = await findTenantById(tenantId)
  if (!tenant) throw new Error('no such tenant')
  const { reportRows } = await import('../shared/services/files/export-rows.ts')
  const started = performance.now()
  const cpu = process.cpuUsage()
  let rows = 0
  if (count !== undefined) {
    const read = reportRows(tenant, 'completions', {}, count)
    for await (const batch of read) rows += batch.length
  }
  printRun(started, cpu, { failed: 0, rows, rssAtStartMb: 0 })
}

async function main(): Promise<void> {
  const [tenantId, jobId, rows] = process.argv.slice(2)
  if (tenantId === '--file-only') return fileOnly(jobId === 'xlsx' ? 'xlsx' : 'csv', Number(rows))
  if (tenantId === '--reads-only') return readsOnly(jobId ?? '', Number(rows))
  if (tenantId === '--baseline') return readsOnly(jobId ?? '', undefined)
  const { handler } = await import('../functions/workers/export-build/handler.ts')
  const event = {
    Records: [
      {
        messageId: 'bench',
        body: JSON.stringify({ tenant_id: tenantId, job_id: jobId }),
        attributes: { ApproximateReceiveCount: '1' },
      },
    ],
  } as unknown as SQSEvent
  const rssBefore = process.memoryUsage().rss
  const started = performance.now()
  const cpu = process.cpuUsage()
  const outcome = await handler(event)
  printRun(started, cpu, {
    failed: outcome.batchItemFailures.length,
    rssAtStartMb: Math.round(rssBefore / 1048576),
  })
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench/exports-worker: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
