/**
 * Export jobs (document 001, "Export jobs"; docs/decisions/0018): queue one, read it back (with a
 * pre-signed download URL once completed), and run one from its message (the export worker).
 *
 * A run is safe when SQS delivers its message twice or the worker dies half-way: the job is
 * claimed by one conditional write (a live claim turns other deliveries away; one whose lease ran
 * out is taken over), the file always goes to the job's one object key, and `completed` (with the
 * export_ready notification in the same transaction) is written only by the holder of the claim.
 */
import { randomUUID } from 'node:crypto'
import * as v from 'valibot'
import { config } from '../../config.ts'
import { NotFoundError, ServiceUnavailableError } from '../../domain/errors.ts'
import { newNotification } from '../../domain/events.ts'
import {
  DOWNLOAD_URL_SECONDS,
  EXPORT_CLAIM_LEASE_SECONDS,
  EXPORT_FAILED_MESSAGE,
  estimatedCompletionSeconds,
  exportContentType,
  exportFileName,
  exportObjectKey,
  isDownloadable,
  parseExportRequest,
  type ExportJob,
} from '../../domain/reports/export-jobs.ts'
import type { ReportType } from '../../domain/reports/rows.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { writeReportFile } from '../../exports/report-files.ts'
import { errorFields, log } from '../../log.ts'
import { sendMessage } from '../../queue/sqs.ts'
import { presignExportFile } from '../../store/files/export-download-url.ts'
import { uploadExportFile } from '../../store/files/export-files.ts'
import {
  claimExportJob,
  completeExportJob,
  createExportJob,
  failExportJob,
  getExportJob,
  withdrawExportJob,
  type StoredExportJob,
} from '../../store/files/export-jobs-store.ts'
import { reportableCourseCount } from '../../store/courses/courses-list.ts'
import { tenantEnrollmentCounters } from '../../store/reports/reports-store.ts'
import { getUserCounters } from '../../store/users/users-store.ts'
import { tenantById } from '../tenants/tenant-cache.ts'
import { reportRows } from './export-rows.ts'

/** The export queue's message: which job to build. */
export const ExportMessage = v.object({ tenant_id: v.string(), job_id: v.string() })
export type ExportMessage = v.InferOutput<typeof ExportMessage>

export interface QueuedExport {
  readonly job: ExportJob
  readonly estimatedCompletionSeconds: number
}

/** An upper bound of the report's rows from the tenant's counters (one read), for the estimate. */
async function rowsUpperBound(tenant: TenantContext, type: ReportType): Promise<number> {
  if (type === 'course_performance') return reportableCourseCount(tenant)
  if (type === 'user_activity') return (await getUserCounters(tenant)).total
  const counters = await tenantEnrollmentCounters(tenant)
  return type === 'completions' ? counters.completions : counters.total
}

/**
 * Validates the body (400 naming the field), records the job `queued` and queues its message. If
 * the message cannot be queued the job is withdrawn and the request fails: no job waits forever.
 */
export async function queueExport(
  tenant: TenantContext,
  body: unknown,
  now = new Date().toISOString(),
): Promise<QueuedExport> {
  const request = parseExportRequest(body)
  const job: ExportJob = {
    id: randomUUID(),
    status: 'queued',
    reportType: request.reportType,
    format: request.format,
    filters: request.filters,
    notifyEmail: request.notifyEmail,
    createdAt: now,
    startedAt: null,
    completedAt: null,
    rowCount: null,
    fileSizeBytes: null,
    truncated: false,
    error: null,
    objectKey: null,
  }
  const rows = await rowsUpperBound(tenant, job.reportType)
  await createExportJob(tenant, job)
  try {
    const message: ExportMessage = { tenant_id: tenant.id, job_id: job.id }
    await sendMessage(config.exportsQueueUrl, message)
  } catch (err) {
    log('error', 'export job not queued', { tenantId: tenant.id, jobId: job.id, ...errorFields(err) })
    await withdrawExportJob(tenant, job.id).catch(() => undefined)
    throw new ServiceUnavailableError({ cause: err })
  }
  return {
    job,
    estimatedCompletionSeconds: estimatedCompletionSeconds(rows, job.format, config.exportRowCap),
  }
}

export interface ExportJobView {
  readonly job: ExportJob
  readonly download: { readonly url: string; readonly expiresAt: string } | null
}

/** The job, with a fresh 15-minute download URL while its file exists. Another tenant's id: 404. */
export async function getExport(
  tenant: TenantContext,
  jobId: string,
  now = new Date().toISOString(),
): Promise<ExportJobView> {
  const job = await getExportJob(tenant, jobId)
  if (!job) throw new NotFoundError('export_job')
  if (!isDownloadable(job, now) || job.objectKey === null) return { job, download: null }
  return {
    job,
    download: {
      url: await presignExportFile(job.objectKey, exportFileName(job), DOWNLOAD_URL_SECONDS),
      expiresAt: new Date(Date.parse(now) + DOWNLOAD_URL_SECONDS * 1000).toISOString(),
    },
  }
}

/** Another delivery holds a live claim on the job: this one comes back later (SQS retry). */
export class ExportInProgress extends Error {
  constructor() {
    super('The export job is being built by another delivery of its message')
    this.name = 'ExportInProgress'
  }
}

/** The batches of rows of the job, the cap at most; `more` tells whether the report had another. */
async function* capped<T>(
  batches: AsyncIterable<readonly T[]>,
  cap: number,
  state: { more: boolean },
): AsyncGenerator<readonly T[]> {
  let n = 0
  for await (const batch of batches) {
    if (n + batch.length > cap) {
      state.more = true
      if (n < cap) yield batch.slice(0, cap - n)
      return
    }
    n += batch.length
    yield batch
  }
}

async function build(tenant: TenantContext, job: StoredExportJob, claimId: string, now: string) {
  const cap = config.exportRowCap
  const state = { more: false }
  const rows = capped(reportRows(tenant, job.reportType, job.filters, cap + 1, now), cap, state)
  const objectKey = exportObjectKey(tenant.id, job.id, job.format)
  const file = await uploadExportFile(objectKey, exportContentType(job.format), (out) =>
    writeReportFile(job.format, job.reportType, rows, out),
  )
  const completedAt = new Date().toISOString()
  const notifications = job.notifyEmail
    ? [
        newNotification(
          'export_ready',
          null,
          { job_id: job.id, report_type: job.reportType, format: job.format, row_count: file.written },
          completedAt,
          job.notifyEmail,
        ),
      ]
    : []
  const result = {
    completedAt,
    rowCount: file.written,
    fileSizeBytes: file.bytes,
    truncated: state.more,
    objectKey,
  }
  return {
    completed: await completeExportJob(tenant, job.id, claimId, result, { notifications }),
    rows: file.written,
  }
}

/** A file this delivery built and completed its job with: how long it took, its rows. */
export interface BuiltExport {
  readonly ms: number
  readonly rows: number
  readonly format: string
}

/**
 * Builds the job of one message. A job already completed or failed is left as it is (a duplicate
 * delivery); a failure while building fails the job for good with a clear error (a new job is the
 * retry), except an unavailable store, which nothing could record: that message comes back.
 * @returns the file built, undefined when this delivery completed nothing
 * @throws ExportInProgress while another delivery holds a live claim
 */
export async function runExport(
  message: ExportMessage,
  now = new Date().toISOString(),
): Promise<BuiltExport | undefined> {
  const ids = { tenantId: message.tenant_id, jobId: message.job_id }
  const tenant = await tenantById(message.tenant_id)
  if (!tenant) {
    log('info', 'export job skipped', { ...ids, reason: 'tenant_missing' })
    return undefined
  }
  const claimId = randomUUID()
  const leaseUntil = new Date(Date.parse(now) + EXPORT_CLAIM_LEASE_SECONDS * 1000).toISOString()
  const claim = await claimExportJob(tenant, message.job_id, { claimId, now, leaseUntil })
  if ('refused' in claim) {
    if (claim.refused?.status === 'processing') throw new ExportInProgress()
    log('info', 'export job skipped', {
      ...ids,
      reason: claim.refused ? claim.refused.status : 'job_missing',
    })
    return undefined
  }
  const started = Date.now()
  try {
    const { completed, rows } = await build(tenant, claim.claimed, claimId, now)
    const built = { ms: Date.now() - started, rows, format: claim.claimed.format }
    log('info', completed ? 'export job completed' : 'export job claim lost', {
      ...ids,
      format: built.format,
      ms: built.ms,
    })
    return completed ? built : undefined
  } catch (err) {
    log('error', 'export job failed', { ...ids, ...errorFields(err) })
    if (err instanceof ServiceUnavailableError) throw err
    await failExportJob(tenant, message.job_id, claimId, {
      error: EXPORT_FAILED_MESSAGE,
      at: new Date().toISOString(),
    })
    return undefined
  }
}
