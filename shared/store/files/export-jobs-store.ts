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
import { withDefault } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, conditionExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { leaseIndexAttributes, leaseIndexKeys } from './export-leases.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { isRefused } from '../core/store-errors.ts'

/** A job as stored, with the claim that holds it (if any) and when it failed. */
export interface StoredExportJob extends ExportJob {
  readonly claimId: string | null
  readonly leaseUntil: string | null
  readonly failedAt: string | null
}

const retention = (createdAt: string) =>
  Math.floor(Date.parse(createdAt) / 1000) + EXPORT_JOB_RETENTION_SECONDS

/** While it holds a lease, a job is on the leases range (gsi1, `export-leases.ts`). */
const jobEntity = defineEntity(
  'export_job',
  {
    id: field('job_id', v.string()),
    status: field('status', v.picklist(exportStatuses)),
    reportType: field('report_type', v.picklist(reportTypes)),
    format: field('format', v.picklist(exportFormats)),
    filters: field('filters', withDefault(v.record(v.string(), v.string()), {})),
    notifyEmail: optionalField('notify_email', v.string()),
    createdAt: field('created_at', v.string()),
    startedAt: optionalField('started_at', v.string()),
    completedAt: optionalField('completed_at', v.string()),
    rowCount: optionalField('row_count', v.number()),
    fileSizeBytes: optionalField('file_size_bytes', v.number()),
    truncated: field('truncated', withDefault(v.boolean(), false)),
    error: optionalField('error', v.string()),
    failedAt: optionalField('failed_at', v.string()),
    objectKey: optionalField('object_key', v.string()),
    claimId: optionalField('claim_id', v.string()),
    leaseUntil: optionalField('lease_until', v.string()),
  },
  {
    key: (tenant: TenantContext, j) => keys.exportJob(tenant, j.id),
    derived: (_, j) => ({
      ...(j.leaseUntil === null ? {} : leaseIndexKeys(j.id, j.leaseUntil)),
      [TTL_ATTRIBUTE]: retention(j.createdAt),
    }),
  },
)

export const toExportJob = (item: Item): StoredExportJob => jobEntity.decode(item)

/**
 * A new job, `queued`; the condition keeps an id from ever naming two jobs. It is on the leases
 * range from the start, with its creation as its lease: a job whose message is lost before any
 * worker claims it is found by the stuck-exports job as a claimed one whose worker died is (the
 * claim moves it to its own lease).
 */
export function createExportJobParams(tenant: TenantContext, job: ExportJob) {
  return {
    Item: jobEntity.item(tenant, {
      ...job,
      status: 'queued',
      truncated: false,
      failedAt: null,
      claimId: null,
      leaseUntil: job.createdAt,
    }),
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
          ...jobEntity.encode(
            {
              status: 'processing',
              claimId: claim.claimId,
              leaseUntil: claim.leaseUntil,
              startedAt: claim.now,
            },
            ['status', 'claimId', 'leaseUntil', 'startedAt'],
          ),
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

/** A finished job holds no lease, so it leaves the leases range. */
const unleased = [jobEntity.fields.leaseUntil.attribute, ...leaseIndexAttributes]

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
              set: jobEntity.encode({ ...result, status: 'completed' }, [
                'status',
                'completedAt',
                'rowCount',
                'fileSizeBytes',
                'truncated',
                'objectKey',
              ]),
              remove: unleased,
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
        set: jobEntity.encode({ status: 'failed', error: failure.error, failedAt: failure.at }, [
          'status',
          'error',
          'failedAt',
        ]),
        remove: unleased,
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
