import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../../shared/domain/errors.ts'
import {
  estimatedCompletionSeconds,
  exportObjectKey,
  exportSort,
  isDownloadable,
  parseExportRequest,
  progressPercent,
  type ExportJob,
} from '../../../../shared/domain/reports/export-jobs.ts'

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (err) {
    if (err instanceof ValidationError) return err.field
    throw err
  }
  return undefined
}

describe('Rules: export jobs', () => {
  it('shows progress 0 queued, 50 processing, 100 completed (and 0 for a failed job)', () => {
    expect(['queued', 'processing', 'completed', 'failed'].map((s) => progressPercent(s as never))).toEqual([
      0, 50, 100, 0,
    ])
  })

  it('reads a body: csv by default, filters as the GET route reads them, booleans and numbers as their text', () => {
    expect(parseExportRequest({ report_type: 'user_activity', filters: { include_inactive: true } })).toEqual(
      {
        reportType: 'user_activity',
        format: 'csv',
        filters: { include_inactive: 'true' },
        notifyEmail: null,
      },
    )
    expect(
      parseExportRequest({
        report_type: 'completions',
        format: 'xlsx',
        filters: { page: 3, per_page: 10, sort_by: 'score', pass_fail: null },
        notify_email: ' Ops@Example.com ',
      }),
    ).toEqual({
      reportType: 'completions',
      format: 'xlsx',
      filters: { sort_by: 'score' },
      notifyEmail: 'ops@example.com',
    })
  })

  it('refuses a bad body naming the field', () => {
    expect(fieldOf(() => parseExportRequest(undefined))).toBe('body')
    expect(fieldOf(() => parseExportRequest({ report_type: 'x' }))).toBe('report_type')
    expect(fieldOf(() => parseExportRequest({ report_type: 'enrollments', format: 'ods' }))).toBe('format')
    expect(
      fieldOf(() => parseExportRequest({ report_type: 'enrollments', filters: { status: 'nope' } })),
    ).toBe('filters.status')
    expect(fieldOf(() => parseExportRequest({ report_type: 'compliance', filters: { sort_by: 'x' } }))).toBe(
      'filters.sort_by',
    )
    expect(
      fieldOf(() => parseExportRequest({ report_type: 'enrollments', filters: { sort_by: 'completed_at' } })),
    ).toBe('filters.sort_by')
    expect(
      fieldOf(() => parseExportRequest({ report_type: 'completions', filters: { user_id: ['a'] } })),
    ).toBe('filters.user_id')
  })

  it('orders rows as the GET route does', () => {
    expect(exportSort('completions', {})).toEqual({ by: 'completed_at', order: 'desc' })
    expect(exportSort('completions', { sort_by: 'score', sort_order: 'asc' })).toEqual({
      by: 'score',
      order: 'asc',
    })
    expect(fieldOf(() => exportSort('enrollments', { sort_order: 'sideways' }))).toBe('filters.sort_order')
  })

  it('estimates from the capped row count, and keeps files under the tenant prefix', () => {
    expect(estimatedCompletionSeconds(0, 'csv', 50_000)).toBe(5)
    expect(estimatedCompletionSeconds(1_000_000, 'xlsx', 50_000)).toBe(10)
    expect(estimatedCompletionSeconds(40_000, 'csv', 50_000)).toBe(7)
    expect(exportObjectKey('t1', 'j1', 'xlsx')).toBe('tenants/t1/exports/j1.xlsx')
  })

  it('offers a download only for a completed job whose file the lifecycle rule has not deleted', () => {
    const job = { status: 'completed', objectKey: 'k', completedAt: '2026-03-01T00:00:00.000Z' } as ExportJob
    expect(isDownloadable(job, '2026-03-03T23:59:59.000Z')).toBe(true)
    expect(isDownloadable(job, '2026-03-04T00:00:00.000Z')).toBe(false)
    expect(isDownloadable({ ...job, status: 'failed' }, '2026-03-02T00:00:00.000Z')).toBe(false)
  })
})
