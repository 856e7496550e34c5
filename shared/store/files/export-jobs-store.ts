/**
 * Export jobs (`EXPORT#<jobId>` in the tenant's partition). Every change of state is one
 * conditional write, never a read then a write: created `queued` once; claimed `processing` by
 * one delivery of its message (or taken over once that claim's lease ran out: a worker that died
 * half-way); `completed` or `failed` only by the holder of the current claim, so a duplicate
 * delivery or a worker that lost its claim can never complete a job twice (and the export_ready
 * notification, written in the completing transaction, is written once).
 */
import * as v from 'valibot'
import { reportTypes } from '../../domain/reports/rows.ts'
import {
  EXPORT_JOB_RETENTION_SECONDS,
  exportFormats,
  exportStatuses,
  type ExportJob,
} from '../../domain/reports/export-jobs.ts'
import type { Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { deleteItem, getItem, putItem, updateOrCurrent, type Item } from '../core/db.ts'
import { decodeItem, nullable, withDefault } from '../core/decode.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { leaseIndexAttributes, leaseIndexKeys } from './export-leases.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { isRefused } from '../core/store-errors.ts'

const JobItem = v.object({
  job_id: v.string(),
  status: v.picklist(exportStatuses),
  report_type: v.picklist(reportTypes),
  format: v.picklist(exportFormats),
  filters: withDefault(v.record(v.string(), v.string()), {}),
  notify_email: nullable(v.string()),
  created_at: v.string(),
  started_at: nullable(v.string()),
  completed_at: nullable(v.string()),
  row_count: nullable(v.number()),
  file_size_bytes: nullable(v.number()),
  truncated: withDefault(v.boolean(), false),
  error: nullable(v.string()),
  object_key: nullable(v.string()),
  claim_id: nullable(v.string()),
  lease_until: nullable(v.string()),
})

/** A job as stored, with the claim that holds it (if any). */
export interface StoredExportJob extends ExportJob {
  readonly claimId: string | null
  readonly leaseUntil: string | null
}

export function toExportJob(item: Item): StoredExportJob {
  const i = decodeItem('export job', JobItem, item)
  return {
    id: i.job_id,
    status: i.status,
    reportType: i.report_type,
    format: i.format,
    filters: i.filters,
    notifyEmail: i.notify_email,
    createdAt: i.created_at,
    startedAt: i.started_at,
    completedAt: i.completed_at,
    rowCount: i.row_count,
    fileSizeBytes: i.file_size_bytes,
    truncated: i.truncated,
    error: i.error,
    objectKey: i.object_key,
    claimId: i.claim_id,
    leaseUntil: i.lease_until,
  }
}

const retention = (createdAt: string) =>
  Math.floor(Date.parse(createdAt) / 1000) + EXPORT_JOB_RETENTION_SECONDS

/**
 * A new job, `queued`; the condition keeps an id from ever naming two jobs. It is on the leases
 * range from the start, with its creation as its lease: a job whose message is lost before any
 * worker claims it is found by the stuck-exports job as a claimed one whose worker died is (the
 * claim moves it to its own lease).
 */
export function createExportJobParams(tenant: TenantContext, job: ExportJob) {
  return {
    Item: {
      ...keys.exportJob(tenant, job.id),
      type: 'export_job',
      job_id: job.id,
      status: 'queued',
      lease_until: job.createdAt,
      ...leaseIndexKeys(job.id, job.createdAt),
      report_type: job.reportType,
      format: job.format,
      filters: job.filters,
      notify_email: job.notifyEmail,
      created_at: job.createdAt,
      truncated: false,
      [TTL_ATTRIBUTE]: retention(job.createdAt),
    },
    ...conditionExpression(cond.notExists()),
  }
}

export type ExportJobRefusal = 'job_exists' | 'not_claimable' | 'claim_lost'

export function createExportJob(tenant: TenantContext, job: ExportJob): Promise<void> {
  return writeOrRefuse<ExportJobRefusal>(putItem(createExportJobParams(tenant, job)), 'job_exists')
}

/** Strongly consistent: a client polling right after the POST sees its job. */
export function getExportJobParams(tenant: TenantContext, jobId: string) {
  return { Key: keys.exportJob(tenant, jobId), ConsistentRead: true }
}

export async function getExportJob(
  tenant: TenantContext,
  jobId: string,
): Promise<StoredExportJob | undefined> {
  const { Key, ...options } = getExportJobParams(tenant, jobId)
  const item = await getItem(Key, options)
  return item ? toExportJob(item) : undefined
}

/** Takes the job off the books when its message could not be queued (the POST then fails). */
export function withdrawExportJobParams(tenant: TenantContext, jobId: string) {
  return { Key: keys.exportJob(tenant, jobId), ...conditionExpression(cond.eq('status', 'queued')) }
}

export async function withdrawExportJob(tenant: TenantContext, jobId: string): Promise<void> {
  await deleteItem(withdrawExportJobParams(tenant, jobId))
}

/**
 * Claims a queued job for `claimId` until `leaseUntil`, or takes over a claim whose lease ran out
 * before `now` (its worker died half-way). Reads the job as it writes it.
 */
export function claimExportJobParams(
  tenant: TenantContext,
  jobId: string,
  claim: { readonly claimId: string; readonly now: string; readonly leaseUntil: string },
) {
  return {
    Key: keys.exportJob(tenant, jobId),
    ...updateExpression(
      {
        set: {
          status: 'processing',
          claim_id: claim.claimId,
          lease_until: claim.leaseUntil,
          started_at: claim.now,
          ...leaseIndexKeys(jobId, claim.leaseUntil),
        },
      },
      cond.and(
        cond.exists(),
        cond.or(
          cond.eq('status', 'queued'),
          cond.and(cond.eq('status', 'processing'), cond.lt('lease_until', claim.now)),
        ),
      ),
    ),
  }
}

export type ClaimResult =
  { readonly claimed: StoredExportJob } | { readonly refused: StoredExportJob | undefined }

export async function claimExportJob(
  tenant: TenantContext,
  jobId: string,
  claim: { readonly claimId: string; readonly now: string; readonly leaseUntil: string },
): Promise<ClaimResult> {
  const outcome = await updateOrCurrent(claimExportJobParams(tenant, jobId, claim))
  if ('updated' in outcome) return { claimed: toExportJob(outcome.updated) }
  return { refused: outcome.refused && toExportJob(outcome.refused) }
}

/** Only the current claim moves a processing job on. */
const heldBy = (claimId: string) => cond.and(cond.eq('status', 'processing'), cond.eq('claim_id', claimId))

export interface ExportResult {
  readonly completedAt: string
  readonly rowCount: number
  readonly fileSizeBytes: number
  readonly truncated: boolean
  readonly objectKey: string
}

/** The job completed, and what its completion causes (the export_ready notification) with it. */
export function completeExportJobSteps(
  tenant: TenantContext,
  jobId: string,
  claimId: string,
  result: ExportResult,
  effects: Effects,
): Step<ExportJobRefusal>[] {
  return [
    {
      item: {
        Update: {
          Key: keys.exportJob(tenant, jobId),
          ...updateExpression(
            {
              set: {
                status: 'completed',
                completed_at: result.completedAt,
                row_count: result.rowCount,
                file_size_bytes: result.fileSizeBytes,
                truncated: result.truncated,
                object_key: result.objectKey,
              },
              remove: ['lease_until', ...leaseIndexAttributes],
            },
            heldBy(claimId),
          ),
        },
      },
      refusal: 'claim_lost',
    },
    ...effectSteps(tenant, effects),
  ]
}

/** @returns false when the claim was lost (another delivery holds or finished the job) */
export async function completeExportJob(
  tenant: TenantContext,
  jobId: string,
  claimId: string,
  result: ExportResult,
  effects: Effects,
): Promise<boolean> {
  try {
    await commit(completeExportJobSteps(tenant, jobId, claimId, result, effects))
    return true
  } catch (err) {
    if (isRefused<ExportJobRefusal>(err, 'claim_lost')) return false
    throw err
  }
}

export function failExportJobParams(
  tenant: TenantContext,
  jobId: string,
  claimId: string,
  failure: { readonly error: string; readonly at: string },
) {
  return {
    Key: keys.exportJob(tenant, jobId),
    ...updateExpression(
      {
        set: { status: 'failed', error: failure.error, failed_at: failure.at },
        remove: ['lease_until', ...leaseIndexAttributes],
      },
      heldBy(claimId),
    ),
  }
}

/** @returns false when the claim was lost */
export async function failExportJob(
  tenant: TenantContext,
  jobId: string,
  claimId: string,
  failure: { readonly error: string; readonly at: string },
): Promise<boolean> {
  const outcome = await updateOrCurrent(failExportJobParams(tenant, jobId, claimId, failure))
  return 'updated' in outcome
}
