/**
 * The transcript over HTTP: the envelope (`meta.total` is the item count), or CSV: RFC 4180 (CRLF,
 * quoted fields), UTF-8 with a BOM so spreadsheets read accents right, as a download. Cells go
 * through the exports' one cell writer, which neutralises text a spreadsheet would run as a formula.
 */
import * as v from 'valibot'
import { enrollmentStatuses } from '../../shared/domain/enrollments/enrollment.ts'
import { csvDocument } from '../../shared/domain/csv/cell.ts'
import type { HttpResult } from '../../shared/http/context.ts'
import { envelope } from '../../shared/http/responses.ts'
import type { Transcript, TranscriptItem } from '../../shared/services/reports/transcript-service.ts'

const TranscriptItemSchema = v.object({
  id: v.string(),
  type: v.picklist(['course', 'path']),
  item_id: v.string(),
  title: v.string(),
  status: v.picklist(enrollmentStatuses),
  started_at: v.nullable(v.string()),
  completed_at: v.nullable(v.string()),
  due_date: v.nullable(v.string()),
  expires_at: v.nullable(v.string()),
  score_percent: v.nullable(v.number()),
  time_spent_seconds: v.number(),
  progress_percent: v.number(),
  certificate_id: v.nullable(v.string()),
  certificate_number: v.nullable(v.string()),
  ceu_value: v.number(),
  ceu_label: v.string(),
})

export const TranscriptSchema = v.object({
  user_id: v.string(),
  generated_at: v.string(),
  totals: v.object({
    completed: v.number(),
    in_progress: v.number(),
    time_spent_seconds: v.number(),
    ceu_total: v.number(),
    ceu_label: v.string(),
    certificates: v.number(),
  }),
  items: v.array(TranscriptItemSchema),
})

/** The transcript's `meta`: the item count only (no paging). */
export const TranscriptMetaSchema = v.object({ total: v.number() })

function toItem(i: TranscriptItem): v.InferOutput<typeof TranscriptItemSchema> {
  return {
    id: i.id,
    type: i.type,
    item_id: i.itemId,
    title: i.title,
    status: i.status,
    started_at: i.startedAt,
    completed_at: i.completedAt,
    due_date: i.dueDate,
    expires_at: i.expiresAt,
    score_percent: i.scorePercent,
    time_spent_seconds: i.timeSpentSeconds,
    progress_percent: i.progressPercent,
    certificate_id: i.certificateId,
    certificate_number: i.certificateNumber,
    ceu_value: i.ceuValue,
    ceu_label: i.ceuLabel,
  }
}

type ItemView = ReturnType<typeof toItem>

const CSV_COLUMNS: readonly (keyof ItemView)[] = [
  'id',
  'type',
  'item_id',
  'title',
  'status',
  'started_at',
  'completed_at',
  'due_date',
  'expires_at',
  'score_percent',
  'time_spent_seconds',
  'progress_percent',
  'certificate_id',
  'certificate_number',
  'ceu_value',
  'ceu_label',
]

export function transcriptCsv(items: readonly ItemView[]): string {
  return csvDocument(
    CSV_COLUMNS,
    items.map((item) => CSV_COLUMNS.map((c) => item[c])),
  )
}

export function transcriptResponse(t: Transcript, format: 'json' | 'csv'): HttpResult {
  const items = t.items.map(toItem)
  if (format === 'csv') {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="transcript-${t.userId}.csv"`,
      },
      body: transcriptCsv(items),
    }
  }
  const data: v.InferOutput<typeof TranscriptSchema> = {
    user_id: t.userId,
    generated_at: t.generatedAt,
    totals: {
      completed: t.totals.completed,
      in_progress: t.totals.inProgress,
      time_spent_seconds: t.totals.timeSpentSeconds,
      ceu_total: t.totals.ceuTotal,
      ceu_label: t.totals.ceuLabel,
      certificates: t.totals.certificates,
    },
    items,
  }
  const meta: v.InferOutput<typeof TranscriptMetaSchema> = { total: items.length }
  return envelope(200, data, meta)
}
