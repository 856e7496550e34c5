/** Route group `reports`: export jobs (document 001, "Export jobs"); the service does the work. */
import type * as v from 'valibot'
import { progressPercent, type ExportJob } from '../../shared/domain/reports/export-jobs.ts'
import { Uuid } from '../../shared/domain/validation.ts'
import { envelope, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import type { ExportJobSchema, QueuedExportSchema } from './representation.ts'
import * as exportJobs from '../../shared/services/files/export-jobs-service.ts'

/**
 * Every field of the spec's export job, always present (null until it applies): `error` only on a
 * failed job, `download_url` only while a completed job's file exists. `truncated` says the report
 * had more rows than the 50,000 the file holds (decision 0018).
 */
function toExportResource(
  job: ExportJob,
  download: exportJobs.ExportJobView['download'],
): v.InferOutput<typeof ExportJobSchema> {
  return {
    job_id: job.id,
    status: job.status,
    report_type: job.reportType,
    format: job.format,
    filters: job.filters,
    progress_percent: progressPercent(job.status),
    row_count: job.rowCount,
    file_size_bytes: job.fileSizeBytes,
    truncated: job.truncated,
    error: job.status === 'failed' ? job.error : null,
    created_at: job.createdAt,
    completed_at: job.status === 'completed' ? job.completedAt : null,
    download_url: download?.url ?? null,
    download_url_expires_at: download?.expiresAt ?? null,
  }
}

export const queueExport = route('POST /api/v1/reports/export', async ({ tenant, body }) => {
  const { job, estimatedCompletionSeconds } = await exportJobs.queueExport(tenant, body)
  const data: v.InferOutput<typeof QueuedExportSchema> = {
    ...toExportResource(job, null),
    estimated_completion_seconds: estimatedCompletionSeconds,
  }
  const result = envelope(202, data)
  return { ...result, headers: { ...result.headers, location: `/api/v1/reports/export/${job.id}` } }
})

export const getExport = route('GET /api/v1/reports/export/{id}', async (input) => {
  const { job, download } = await exportJobs.getExport(input.tenant, pathId(input, 'id', 'export_job', Uuid))
  return ok(toExportResource(job, download))
})
