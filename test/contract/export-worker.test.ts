/**
 * The export worker on its own (the handler invoked in this process, as SQS invokes it), against
 * the stack's table and bucket, with jobs recorded straight in the store so the stack's own worker
 * never sees them: the row cap (lowered here through the configuration, which the product reads
 * once), a fault injected into S3 (the job fails for good, with a clear error), and duplicate
 * deliveries of a job whose first worker died half-way (one object, one `completed`, one e-mail).
 * What a client sees is read over HTTP.
 */
import { randomUUID } from 'node:crypto'
import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import { mockClient } from 'aws-sdk-client-mock'
import { describe, expect, it, vi } from 'vitest'

const CAP = vi.hoisted(() => {
  // Read once by shared/config.ts, at its first import below.
  process.env.LMS_EXPORT_ROW_CAP = '2'
  return 2
})

import { handler } from '../../functions/workers/export-build/handler.ts'
import { config } from '../../shared/config.ts'
import type { ExportJob } from '../../shared/domain/reports/export-jobs.ts'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { listSentMail } from '../../shared/services/deliveries/mail-service.ts'
import { s3 as exportsS3 } from '../../shared/aws/s3.ts'
import { claimExportJob, createExportJob } from '../../shared/store/files/export-jobs-store.ts'
import { lms } from '../helpers/cli.ts'
import { parseCsv } from '../helpers/file-readers.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { sqsEvent, sqsRecord } from '../helpers/sqs-event.ts'
import { until } from '../helpers/until.ts'

const delivery = (t: TestTenant, jobId: string) =>
  sqsEvent(sqsRecord(JSON.stringify({ tenant_id: t.tenant.id, job_id: jobId }), { queue: 'lms-exports' }))

async function queuedJob(t: TestTenant, over: Partial<ExportJob> = {}): Promise<string> {
  const id = randomUUID()
  await createExportJob(t.tenant, {
    id,
    status: 'queued',
    reportType: 'completions',
    format: 'csv',
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
    ...over,
  })
  return id
}

async function completions(t: TestTenant, count: number): Promise<void> {
  const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
  for (let i = 0; i < count; i++) {
    const u = await user(t)
    const e = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: c.id })
    await recordActivity(t.tenant, e.body.data.id, {
      moduleId: c.modules[0]?.id ?? '',
      kind: 'complete',
      score: 50 + i,
      at: `2026-0${i + 1}-01T00:00:00.000Z`,
    })
  }
}

const failures = (r: Awaited<ReturnType<typeof handler>>) => r.batchItemFailures.length

describe('Export worker', () => {
  it('cuts a report larger than the cap at the cap and says so (truncated), first rows in the report order', async () => {
    // Prepare
    expect(config.exportRowCap).toBe(CAP)
    const t = await newTenant()
    await completions(t, CAP + 1)
    const id = await queuedJob(t)

    // Act
    const outcome = await handler(delivery(t, id))
    const job = await t.api.get(`/api/v1/reports/export/${id}`)

    // Assess
    expect(failures(outcome)).toBe(0)
    expect(job.body.data).toMatchObject({ status: 'completed', row_count: CAP, truncated: true })
    const file = parseCsv(
      Buffer.from(await (await fetch(job.body.data.download_url)).arrayBuffer()).toString(),
    )
    const report = await t.api.get('/api/v1/reports/completions')
    expect(report.body.meta.total).toBe(CAP + 1)
    expect(file.rows.slice(1).map((r) => r[0])).toEqual(
      report.body.data.slice(0, CAP).map((r: { enrollment_id: string }) => r.enrollment_id),
    )
  })

  it('fails the job for good with a clear error when the file cannot be written (a new job is the retry)', async () => {
    // Prepare
    const t = await newTenant()
    await completions(t, 1)
    const id = await queuedJob(t, { format: 'xlsx' })
    const s3 = mockClient(exportsS3)
    s3.onAnyCommand().rejects(
      Object.assign(new Error('We encountered an internal error'), { name: 'InternalError' }),
    )

    // Act
    let outcome
    try {
      outcome = await handler(delivery(t, id))
    } finally {
      s3.restore()
    }
    const job = await t.api.get(`/api/v1/reports/export/${id}`)
    const again = await handler(delivery(t, id))

    // Assess
    expect(failures(outcome)).toBe(0)
    expect(failures(again)).toBe(0)
    expect(job.body.data).toMatchObject({
      status: 'failed',
      progress_percent: 0,
      error: 'The export could not be built. Queue a new export to try again.',
      row_count: null,
      file_size_bytes: null,
      completed_at: null,
      download_url: null,
      download_url_expires_at: null,
    })
    expect(JSON.stringify(job.body)).not.toContain('internal error')
    expect((await t.api.get(`/api/v1/reports/export/${id}`)).body.data.status).toBe('failed')
  })

  it('builds a job once when its first worker died half-way and SQS delivers the message again, twice', async () => {
    // Prepare: a job claimed by a worker that died (its lease ran out), with a notify address
    const t = await newTenant()
    await completions(t, 1)
    const address = `exports-${randomUUID().slice(0, 8)}@example.com`
    const id = await queuedJob(t, { notifyEmail: address })
    const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()
    const dead = await claimExportJob(t.tenant, id, { claimId: 'dead', now: past(10), leaseUntil: past(5) })
    expect('claimed' in dead).toBe(true)

    // Act: two deliveries at once, then a third once the job is done
    const [a, b] = await Promise.all([handler(delivery(t, id)), handler(delivery(t, id))])
    const done = await t.api.get(`/api/v1/reports/export/${id}`)
    const third = await handler(delivery(t, id))
    const after = await t.api.get(`/api/v1/reports/export/${id}`)
    // A later job to the same address: once its mail is in, the first job's mails are all in too.
    const later = await queuedJob(t, { notifyEmail: address })
    expect(failures(await handler(delivery(t, later)))).toBe(0)
    await until(
      () => listSentMail({ tenantId: t.tenant.id, to: address }),
      (l) => l.some((m) => m.text.includes(later)),
    )

    // Assess: at most the copy turned away while the other held the claim comes back
    expect(failures(a) + failures(b)).toBeLessThanOrEqual(1)
    expect(failures(third)).toBe(0)
    expect(done.body.data).toMatchObject({ status: 'completed', row_count: 1 })
    expect(after.body.data.completed_at).toBe(done.body.data.completed_at)
    const objects = await exportsS3.send(
      new ListObjectsV2Command({
        Bucket: config.exportsBucket,
        Prefix: `tenants/${t.tenant.id}/exports/${id}`,
      }),
    )
    expect(objects.Contents?.map((o) => o.Key)).toEqual([`tenants/${t.tenant.id}/exports/${id}.csv`])
    const mails = await listSentMail({ tenantId: t.tenant.id, to: address })
    expect(mails.filter((m) => m.text.includes(id))).toHaveLength(1)
  })

  it('fails a job stuck in processing (its message went to the DLQ) when `lms jobs run stuck-exports` runs, and e-mails nothing', async () => {
    // Prepare: a job claimed by a worker that died two hours ago and never delivered again, and one
    // whose worker died half an hour ago (its message may still come back: not stuck yet)
    const t = await newTenant()
    await completions(t, 1)
    const address = `stuck-${randomUUID().slice(0, 8)}@example.com`
    const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()
    const stuck = await queuedJob(t, { notifyEmail: address })
    const recent = await queuedJob(t, { notifyEmail: address })
    await claimExportJob(t.tenant, stuck, { claimId: 'dead', now: past(125), leaseUntil: past(120) })
    await claimExportJob(t.tenant, recent, { claimId: 'dead', now: past(35), leaseUntil: past(30) })
    const before = await t.api.get(`/api/v1/reports/export/${stuck}`)

    // Act
    const first = await lms('jobs', 'run', 'stuck-exports')
    const failed = await t.api.get(`/api/v1/reports/export/${stuck}`)
    const waiting = await t.api.get(`/api/v1/reports/export/${recent}`)
    // Its message delivered after all: the job stays failed, nothing is built.
    const late = await handler(delivery(t, stuck))
    // The recent one's message comes back and builds it: its mail is the only one to the address.
    expect(failures(await handler(delivery(t, recent)))).toBe(0)
    const mails = await until(
      () => listSentMail({ tenantId: t.tenant.id, to: address }),
      (l) => l.some((m) => m.text.includes(recent)),
    )

    // Assess
    expect(before.body.data.status).toBe('processing')
    expect(first.code).toBe(0)
    expect(first.json.failed).toBeGreaterThanOrEqual(1)
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      progress_percent: 0,
      error: 'The export could not be built. Queue a new export to try again.',
      row_count: null,
      download_url: null,
    })
    expect(waiting.body.data.status).toBe('processing')
    expect(failures(late)).toBe(0)
    expect((await t.api.get(`/api/v1/reports/export/${stuck}`)).body.data.status).toBe('failed')
    const objects = await exportsS3.send(
      new ListObjectsV2Command({
        Bucket: config.exportsBucket,
        Prefix: `tenants/${t.tenant.id}/exports/${stuck}`,
      }),
    )
    expect(objects.Contents ?? []).toEqual([])
    expect(mails.filter((m) => m.text.includes(stuck))).toEqual([])
  })

  it('fails a job left queued an hour after it was created (its message lost before any claim), and only that one', async () => {
    // Prepare: a job queued two hours ago whose message never reached a worker; one queued half
    // an hour ago; one queued two hours ago that a worker claims just before the sweep.
    const t = await newTenant()
    await completions(t, 1)
    const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()
    const lost = await queuedJob(t, { createdAt: past(120) })
    const recent = await queuedJob(t, { createdAt: past(30) })
    const late = await queuedJob(t, { createdAt: past(120) })
    expect((await t.api.get(`/api/v1/reports/export/${lost}`)).body.data.status).toBe('queued')
    expect(failures(await handler(delivery(t, late)))).toBe(0)

    // Act
    const sweep = await lms('jobs', 'run', 'stuck-exports')
    const again = await lms('jobs', 'run', 'stuck-exports')

    // Assess
    expect(sweep.code).toBe(0)
    expect((await t.api.get(`/api/v1/reports/export/${lost}`)).body.data).toMatchObject({
      status: 'failed',
      error: 'The export could not be built. Queue a new export to try again.',
      download_url: null,
    })
    expect((await t.api.get(`/api/v1/reports/export/${recent}`)).body.data.status).toBe('queued')
    expect((await t.api.get(`/api/v1/reports/export/${late}`)).body.data.status).toBe('completed')
    // Its message arriving after all builds nothing: the job stays failed.
    expect(failures(await handler(delivery(t, lost)))).toBe(0)
    expect((await t.api.get(`/api/v1/reports/export/${lost}`)).body.data.status).toBe('failed')
    const objects = await exportsS3.send(
      new ListObjectsV2Command({
        Bucket: config.exportsBucket,
        Prefix: `tenants/${t.tenant.id}/exports/${lost}`,
      }),
    )
    expect(objects.Contents ?? []).toEqual([])
    expect(again.code).toBe(0)
    expect((await t.api.get(`/api/v1/reports/export/${lost}`)).body.data.status).toBe('failed')
  })
})
