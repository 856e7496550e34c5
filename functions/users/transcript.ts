/**
 * The transcript: its full shape now; items fill in once courses and enrollments exist.
 * CSV is RFC 4180 (CRLF, quoted fields), UTF-8 with a BOM so spreadsheets read accents right.
 */
import type { User } from '../../shared/domain/users/user.ts'
import type { HttpResult } from '../../shared/http/context.ts'
import { envelope } from '../../shared/http/responses.ts'

export interface TranscriptItem {
  readonly id: string
  readonly type: 'course' | 'path'
  readonly item_id: string
  readonly title: string
  readonly status: string
  readonly started_at: string | null
  readonly completed_at: string | null
  readonly due_date: string | null
  readonly expires_at: string | null
  readonly score_percent: number | null
  readonly time_spent_seconds: number
  readonly progress_percent: number
  readonly certificate_id: string | null
  readonly certificate_number: string | null
  readonly ceu_value: number
  readonly ceu_label: string
}

const CSV_COLUMNS: readonly (keyof TranscriptItem)[] = [
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

export function csvField(value: unknown): string {
  const s = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function transcriptCsv(items: readonly TranscriptItem[]): string {
  const rows = [
    CSV_COLUMNS.join(','),
    ...items.map((item) => CSV_COLUMNS.map((c) => csvField(item[c])).join(',')),
  ]
  return `\uFEFF${rows.join('\r\n')}\r\n`
}

export function transcriptResponse(
  user: User,
  format: 'json' | 'csv',
  at = new Date().toISOString(),
): HttpResult {
  const items: TranscriptItem[] = []
  if (format === 'csv') {
    return {
      statusCode: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="transcript-${user.id}.csv"`,
      },
      body: transcriptCsv(items),
    }
  }
  const data = {
    user_id: user.id,
    generated_at: at,
    totals: {
      completed: 0,
      in_progress: 0,
      time_spent_seconds: 0,
      ceu_total: 0,
      ceu_label: 'CEU',
      certificates: 0,
    },
    items,
  }
  return envelope(200, data, { total: items.length })
}
