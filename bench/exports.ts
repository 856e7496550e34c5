/**
 * `npx tsx bench/exports.ts` (part of `npm run bench`): an export of 50,000 completions in each
 * format, built by the export worker in a process of its own (bench/exports-worker.ts) against
 * DynamoDB Local and the in-process S3 emulator: the worker's wall time, its peak RSS, the file's
 * size. Targets (issue 14): the XLSX under 3 s of worker time, peak RSS under 256 MB. Worker
 * time is read as the worker process's CPU time (user + system: what it bills on Lambda, less the
 * wait on DynamoDB; docs/decisions/0018); its wall time is printed beside it.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { startBenchStores } from './bench-stores.ts'
import { EXPORT_WORKER_HEAP_FLAGS } from '../lib/export-worker-heap.ts'
import { exportsBucketName } from '../shared/store/core/table-schema.ts'

const ROWS = 50_000
const COURSES = 20
const TARGETS = { xlsxCpuMs: 3000, peakRssMb: 256 }

function progress(step: string): void {
  process.stderr.write(`bench/exports: ${step}...\n`)
}

interface WorkerRun {
  readonly ms: number
  readonly cpuMs: number
  readonly failed: number
  readonly rssAtStartMb: number
  readonly peakRssMb: number
}

/** The heap a capped run may use: enough for a page, a part in flight and the writer, never a file. */
const CAPPED_HEAP_MB = 128

function runWorker(env: NodeJS.ProcessEnv, args: readonly string[], heapMb?: number): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    // The deployed worker's heap flags (lib/export-worker-heap.ts), and the cap of a capped run.
    const flags = [...EXPORT_WORKER_HEAP_FLAGS, ...(heapMb ? [`--max-old-space-size=${heapMb}`] : [])]
    const child = spawn(process.execPath, [...flags, '--import', 'tsx', 'bench/exports-worker.ts', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the export worker exited with code ${code}`))
      resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as WorkerRun)
    })
  })
}

async function main(): Promise<void> {
  progress('starting DynamoDB Local and the SQS/S3 emulator in memory')
  const stores = await startBenchStores({
    LMS_EXPORTS_BUCKET: exportsBucketName,
    LMS_TENANT_CACHE_MS: '5000',
  })
  try {
    const env = { ...process.env }
    const { createTenant } = await import('../shared/services/tenants/tenants-service.ts')
    const { publishedCourses } = await import('./course-fixtures.ts')
    const { batchPut } = await import('../shared/store/core/db.ts')
    const { enrollmentItem } = await import('../shared/store/enrollments/enrollment-items.ts')
    const { createExportJob, getExportJob } = await import('../shared/store/files/export-jobs-store.ts')
    const { recordSection } = await import('./results-file.ts')

    progress(`seeding ${ROWS} completions over ${COURSES} courses`)
    const tenant = await createTenant({
      slug: `exports-${Date.now().toString(36)}`,
      plan: 'growth',
      name: 'Exports',
    })
    const courses = await publishedCourses(tenant, COURSES, {
      title: (i) => (i % 5 === 0 ? `=Formula course ${i}` : `Course ${i}, "quoted" é`),
      concurrency: 4,
    })
    const base = Date.parse('2026-01-01T00:00:00.000Z')
    const items = Array.from({ length: ROWS }, (_, i) => {
      const at = new Date(base + i * 60_000).toISOString()
      return enrollmentItem(tenant, {
        id: randomUUID(),
        userId: randomUUID(),
        courseId: courses[i % COURSES]?.id ?? '',
        status: 'completed',
        dueDate: null,
        completedAt: at,
        source: 'native',
        channel: 'api',
        createdAt: at,
        enrolledAt: at,
        startedAt: at,
        updatedAt: at,
        progressPercent: 100,
        score: i % 7 === 0 ? null : (i % 100) + 0.5,
        passFail: i % 7 === 0 ? null : i % 3 === 0 ? 'fail' : 'pass',
        certificateId: i % 2 === 0 ? randomUUID() : null,
        certificateNumber: null,
        certificateExpiresAt: null,
        language: 'en',
        timeSpentSeconds: i % 3600,
        lastActivityAt: at,
        holdsSeat: false,
        accessExpiresAt: null,
        modules: {},
        quizAttempts: [],
        scoresLinked: false,
      })
    })
    await batchPut(items, 16)

    const figures: Record<string, number | boolean> = {}
    const lines: string[] = [`load average (1 min) before the runs: ${loadavg()[0]?.toFixed(1)}`]
    figures['loadAverageBefore1m'] = Math.round((loadavg()[0] ?? 0) * 10) / 10
    const queued = async (format: 'csv' | 'xlsx') => {
      const id = randomUUID()
      await createExportJob(tenant, {
        id,
        status: 'queued',
        reportType: 'completions',
        format,
        filters: {},
        notifyEmail: null,
        createdAt: new Date().toISOString(),
        startedAt: null,
        completedAt: null,
        rowCount: null,
        fileSizeBytes: null,
        truncated: false,
        error: null,
        objectKey: null,
      })
      return id
    }
    for (const format of ['csv', 'xlsx'] as const) {
      for (const heap of [undefined, CAPPED_HEAP_MB]) {
        const id = await queued(format)
        progress(`exporting ${ROWS} rows as ${format}${heap ? ` (heap capped at ${heap} MB)` : ''}`)
        const name = `completions ${ROWS} ${format}${heap ? ` heap ${heap} MB` : ''}`
        const run = await runWorker(env, [tenant.id, id], heap).catch((err: unknown) => {
          // Out of heap under the cap: a finding to print, not a reason to stop the bench.
          if (!heap) throw err
          lines.push(`${name}: did NOT complete (${err instanceof Error ? err.message : String(err)})`)
          return undefined
        })
        figures[`${name}.completed`] = run !== undefined
        if (!run) continue
        const job = await getExportJob(tenant, id)
        if (run.failed > 0 || job?.status !== 'completed')
          throw new Error(`the ${format} export did not complete`)
        figures[`${name}.workerMs`] = run.ms
        figures[`${name}.workerCpuMs`] = run.cpuMs
        figures[`${name}.peakRssMb`] = run.peakRssMb
        figures[`${name}.fileBytes`] = job.fileSizeBytes ?? 0
        figures[`${name}.rows`] = job.rowCount ?? 0
        lines.push(
          `${name}: ${run.ms} ms worker wall time (${run.cpuMs} ms CPU), peak RSS ${run.peakRssMb} MB ` +
            `(${run.rssAtStartMb} MB once loaded), ${job.fileSizeBytes} bytes, ${job.rowCount} rows`,
        )
      }
      // The same number of rows made in the worker process: the file and the upload without the table.
      progress(`writing ${ROWS} made-up rows as ${format} (no DynamoDB)`)
      const alone = await runWorker(env, ['--file-only', format, String(ROWS)])
      const name = `file only ${ROWS} ${format}`
      figures[`${name}.workerMs`] = alone.ms
      figures[`${name}.workerCpuMs`] = alone.cpuMs
      figures[`${name}.peakRssMb`] = alone.peakRssMb
      lines.push(`${name}: ${alone.ms} ms wall (${alone.cpuMs} ms CPU), peak RSS ${alone.peakRssMb} MB`)
    }
    // The reads alone (rows made, no file), and the process before any export.
    progress(`reading the ${ROWS} rows alone (no file)`)
    const reads = await runWorker(env, ['--reads-only', tenant.id, String(ROWS)])
    figures[`reads only ${ROWS}.workerMs`] = reads.ms
    figures[`reads only ${ROWS}.workerCpuMs`] = reads.cpuMs
    figures[`reads only ${ROWS}.peakRssMb`] = reads.peakRssMb
    lines.push(
      `reads only ${ROWS}: ${reads.ms} ms wall (${reads.cpuMs} ms CPU), peak RSS ${reads.peakRssMb} MB`,
    )
    const baseline = await runWorker(env, ['--baseline', tenant.id])
    figures['worker loaded, no export.peakRssMb'] = baseline.peakRssMb
    lines.push(`worker loaded, no export: peak RSS ${baseline.peakRssMb} MB`)
    figures['loadAverage1m'] = Math.round((loadavg()[0] ?? 0) * 10) / 10
    lines.push(`load average (1 min) at the end: ${figures['loadAverage1m']}`)
    const xlsxCpuMs = Number(figures[`completions ${ROWS} xlsx.workerCpuMs`])
    const peak = Math.max(
      Number(figures[`completions ${ROWS} csv.peakRssMb`]),
      Number(figures[`completions ${ROWS} xlsx.peakRssMb`]),
    )
    figures['targets.xlsxUnder3s'] = xlsxCpuMs < TARGETS.xlsxCpuMs
    figures['targets.peakRssUnder256Mb'] = peak < TARGETS.peakRssMb
    lines.push(
      `targets: XLSX worker CPU time < ${TARGETS.xlsxCpuMs} ms: ${xlsxCpuMs < TARGETS.xlsxCpuMs ? 'met' : 'MISSED'}; ` +
        `peak RSS < ${TARGETS.peakRssMb} MB: ${peak < TARGETS.peakRssMb ? 'met' : 'MISSED'}`,
    )
    process.stdout.write(`\nExports (bench/exports.ts)\n${lines.join('\n')}\n`)
    process.stdout.write(`${await recordSection('exports', figures)}\n`)
  } finally {
    await stores.stop()
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench/exports: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    )
    process.exit(1)
  },
)
