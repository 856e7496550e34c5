/**
 * Export jobs (document 001, "Export job" and "Export jobs"; docs/decisions/0018): the job's
 * states and what the API shows of each, the request body, and the pure rules of a run (the row
 * cap, the estimate, the file's name). No AWS here: the store keeps jobs, the service runs them.
 */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'
import { Email } from '../users/user-schemas.ts'
import { JsonObject, parseBody, parseOrThrow } from '../validation.ts'
import { completionSorts, enrollmentReportSorts, reportFilters } from './queries.ts'
import { reportTypes, type ReportType } from './rows.ts'

export const exportFormats = ['csv', 'xlsx'] as const
export type ExportFormat = (typeof exportFormats)[number]

export const exportStatuses = ['queued', 'processing', 'completed', 'failed'] as const
export type ExportStatus = (typeof exportStatuses)[number]

/** Spec: 0 queued, 50 processing, 100 completed; a failed job produced nothing usable: 0. */
export function progressPercent(status: ExportStatus): 0 | 50 | 100 {
  if (status === 'processing') return 50
  if (status === 'completed') return 100
  return 0
}

/** Document 001, "Limits": pre-signed download URLs live 15 minutes. */
export const DOWNLOAD_URL_SECONDS = 15 * 60
/** The bucket's lifecycle rule deletes an export file this many days after it was written. */
export const EXPORT_FILE_DAYS = 3
/** Job items expire (TTL) this long after creation: history for a month, then gone. */
export const EXPORT_JOB_RETENTION_SECONDS = 30 * 24 * 3600
/**
 * How long a claim keeps other deliveries of the same message off the job. Longer than the
 * worker's own time limit (lib: 4 minutes), so a live worker never loses its job; a worker that
 * died half-way leaves a claim that the next delivery takes over once it has run out.
 */
export const EXPORT_CLAIM_LEASE_SECONDS = 5 * 60

/**
 * A job still `processing` an hour after its lease ran out, or still `queued` an hour after it was
 * created, is stuck: its message went to the DLQ (or was never delivered again), with the job
 * claimed or before any worker could claim it. A live message would have taken the claim
 * over long before: SQS hands a message out again after 24 minutes (six times the worker's limit),
 * so an hour is two chances and more. The stuck-exports job fails it (shared/services).
 */
export const STUCK_EXPORT_AFTER_SECONDS = 60 * 60

/** Leases that ran out before this moment are stuck at `at`. */
export function stuckLeaseBefore(at: string): string {
  return new Date(Date.parse(at) - STUCK_EXPORT_AFTER_SECONDS * 1000).toISOString()
}

/** Whatever failed, the job says this (never an internal message): a new job is the retry. */
export const EXPORT_FAILED_MESSAGE = 'The export could not be built. Queue a new export to try again.'

export interface ExportJob {
  readonly id: string
  readonly status: ExportStatus
  readonly reportType: ReportType
  readonly format: ExportFormat
  /** The report's filters as validated (the GET route's parameters, by their names). */
  readonly filters: Readonly<Record<string, string>>
  readonly notifyEmail: string | null
  readonly createdAt: string
  readonly startedAt: string | null
  readonly completedAt: string | null
  readonly rowCount: number | null
  readonly fileSizeBytes: number | null
  /** True when the report had more rows than the cap and the file holds the first `rowCount`. */
  readonly truncated: boolean
  readonly error: string | null
  /** The file's object key once written (under the tenant's prefix). */
  readonly objectKey: string | null
}

/** The tenant's prefix first, as every key in the product; one object per job, whatever the retries. */
export const exportObjectKey = (tenantId: string, jobId: string, format: ExportFormat): string =>
  `tenants/${tenantId}/exports/${jobId}.${format}`

export const exportFileName = (job: Pick<ExportJob, 'id' | 'reportType' | 'format'>): string =>
  `${job.reportType}-${job.id}.${job.format}`

export const exportContentType = (format: ExportFormat): string =>
  format === 'csv'
    ? 'text/csv; charset=utf-8'
    : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** When the bucket deletes the file of a job completed at `completedAt`. */
export const exportFileExpiresAt = (completedAt: string): string =>
  new Date(Date.parse(completedAt) + EXPORT_FILE_DAYS * 86_400_000).toISOString()

/** A completed job's file can be downloaded until the lifecycle rule deletes it. */
export function isDownloadable(job: ExportJob, now: string): boolean {
  return job.status === 'completed' && job.objectKey !== null && job.completedAt !== null
    ? exportFileExpiresAt(job.completedAt) > now
    : false
}

/**
 * Seconds a client may expect before the job completes, from an upper bound of its rows: a queue
 * hop and a start, then rows at the pace the bench measures (bench/exports.ts: 50,000 XLSX rows
 * in well under the 3 s target), rounded up generously. An estimate, never a promise.
 */
export function estimatedCompletionSeconds(
  rowsUpperBound: number,
  format: ExportFormat,
  cap: number,
): number {
  const rows = Math.max(0, Math.min(rowsUpperBound, cap))
  const rowsPerSecond = format === 'csv' ? 20_000 : 10_000
  return 5 + Math.ceil(rows / rowsPerSecond)
}

/** Parameters of the GET routes that an export accepts besides the filters. */
const sortParameters: Partial<Record<ReportType, readonly string[]>> = {
  completions: ['sort_by', 'sort_order'],
  enrollments: ['sort_by', 'sort_order'],
}
/** The GET routes' paging has no meaning for a file of every row: accepted and ignored. */
const pagingParameters = ['page', 'per_page'] as const

/** The body of POST /reports/export (filters checked by parseExportRequest against the report). */
export const ExportJobInput = v.object({
  report_type: v.picklist(reportTypes, `must be one of ${reportTypes.join(', ')}`),
  format: v.optional(v.picklist(exportFormats, `must be one of ${exportFormats.join(', ')}`), 'csv'),
  filters: v.optional(JsonObject, {}),
  notify_email: v.optional(v.nullable(Email)),
})

export interface ExportRequest {
  readonly reportType: ReportType
  readonly format: ExportFormat
  /** Filter values as the GET route reads them (strings), checked against the report's schema. */
  readonly filters: Readonly<Record<string, string>>
  readonly notifyEmail: string | null
}

/** A JSON filter value as the query string would carry it: booleans and numbers as their text. */
function asQueryValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean' || typeof value === 'number') return String(value)
  throw new ValidationError(`filters.${name}`, `filters.${name} must be a string, number or boolean`)
}

/**
 * The body of POST /reports/export. `filters` take exactly the matching GET route's parameters
 * (same schema, so the same values pass and fail, named `filters.<name>`); an unknown filter is
 * refused rather than silently widening the export; `page` and `per_page` are ignored.
 * @throws ValidationError naming the field
 */
export function parseExportRequest(body: unknown): ExportRequest {
  const b = parseBody(ExportJobInput, body ?? null)
  const schema = reportFilters[b.report_type]
  const allowed = new Set([...Object.keys(schema.entries), ...(sortParameters[b.report_type] ?? [])])
  const filters: Record<string, string> = {}
  for (const [name, value] of Object.entries(b.filters)) {
    if ((pagingParameters as readonly string[]).includes(name) || value === null || value === undefined)
      continue
    if (!allowed.has(name)) {
      throw new ValidationError(
        `filters.${name}`,
        `filters.${name} is not a parameter of the ${b.report_type} report`,
      )
    }
    filters[name] = asQueryValue(name, value)
  }
  parseOrThrow(schema, filters, 'filters')
  exportSort(b.report_type, filters)
  return {
    reportType: b.report_type,
    format: b.format,
    filters,
    notifyEmail: b.notify_email ?? null,
  }
}

export interface ExportSort {
  readonly by: string
  readonly order: 'asc' | 'desc'
}

/**
 * The order of the exported rows: the GET route's sort and default (completions by completed_at
 * or score, enrollments by enrollment date, both newest first); the other reports have one order.
 * @throws ValidationError naming `filters.sort_by` or `filters.sort_order`
 */
export function exportSort(type: ReportType, filters: Readonly<Record<string, string>>): ExportSort {
  const allowed: readonly string[] =
    type === 'completions' ? completionSorts : type === 'enrollments' ? enrollmentReportSorts : []
  const by = filters.sort_by ?? allowed[0] ?? ''
  if (allowed.length > 0 && !allowed.includes(by)) {
    throw new ValidationError('filters.sort_by', `filters.sort_by must be one of ${allowed.join(', ')}`)
  }
  const order = filters.sort_order ?? 'desc'
  if (order !== 'asc' && order !== 'desc') {
    throw new ValidationError('filters.sort_order', 'filters.sort_order must be asc or desc')
  }
  return { by, order }
}
