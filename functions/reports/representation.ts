/** How an export job reads over the API; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import { exportFormats, exportStatuses } from '../../shared/domain/reports/export-jobs.ts'
import { reportTypes } from '../../shared/domain/reports/rows.ts'

export const ExportJobSchema = v.object({
  job_id: v.string(),
  status: v.picklist(exportStatuses),
  report_type: v.picklist(reportTypes),
  format: v.picklist(exportFormats),
  filters: v.record(v.string(), v.string()),
  progress_percent: v.number(),
  row_count: v.nullable(v.number()),
  file_size_bytes: v.nullable(v.number()),
  truncated: v.boolean(),
  error: v.nullable(v.string()),
  created_at: v.string(),
  completed_at: v.nullable(v.string()),
  download_url: v.nullable(v.string()),
  download_url_expires_at: v.nullable(v.string()),
})

export const QueuedExportSchema = v.object({
  ...ExportJobSchema.entries,
  estimated_completion_seconds: v.number(),
})
