/**
 * Export jobs over HTTP (document 001, "Export jobs"): queue a job, poll it to completion, download
 * the file with a plain HTTP GET of its pre-signed URL (the emulator's S3), and read it back with
 * the independent readers (test/helpers/file-readers.ts), cell by cell against the JSON rows of
 * the matching report route. Learner activity has no API route: it is arranged through services.
 */
import { describe, expect, it } from 'vitest'
import { reportColumns, type ReportType } from '../../shared/domain/reports/rows.ts'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { listSentMail } from '../../shared/services/deliveries/mail-service.ts'
import { parseCsv, readXlsx, type XlsxCell } from '../helpers/file-readers.ts'
import { course, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

type Json = string | number | boolean | null
type Row = Record<string, Json>

/** What a spreadsheet must receive for a text cell (OWASP CSV injection): a leading quote. */
const neutralised = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s)

async function enrollAndComplete(
  t: TestTenant,
  userId: string,
  c: { id: string; modules: { id: string }[] },
  score: number,
  at: string,
) {
  const r = await t.api.post('/api/v1/enrollments', { user_id: userId, course_id: c.id })
  expect(r.status).toBe(201)
  await recordActivity(t.tenant, r.body.data.id, {
    moduleId: c.modules[0]?.id ?? '',
    kind: 'complete',
    score,
    timeSpentSeconds: 120,
    at,
  })
  return r.body.data.id as string
}

/** A course whose title a spreadsheet would run as a formula. */
async function formulaCourse(t: TestTenant, title: string) {
  const c = await course(t, { modules: [{ title: 'V', module_type: 'video' }] })
  expect((await t.api.patch(`/api/v1/courses/${c.id}`, { title })).status).toBe(200)
  return c
}

async function exportOf(t: TestTenant, body: Record<string, unknown>) {
  const queued = await t.api.post('/api/v1/reports/export', body)
  expect(queued.status, queued.text).toBe(202)
  const id = queued.body.data.job_id as string
  const done = await until(
    () => t.api.get(`/api/v1/reports/export/${id}`),
    (r) => r.body?.data?.status === 'completed' || r.body?.data?.status === 'failed',
  )
  expect(done.body.data.status, done.text).toBe('completed')
  return { queued, done, id }
}

/** A plain HTTP GET of the pre-signed URL: no key, no Host header, nothing but the URL. */
async function download(url: string): Promise<Buffer> {
  const r = await fetch(url)
  expect(r.status).toBe(200)
  return Buffer.from(await r.arrayBuffer())
}

async function jsonRows(t: TestTenant, path: string, query = ''): Promise<Row[]> {
  const r = await t.api.get(`${path}?per_page=200${query}`)
  expect(r.status).toBe(200)
  return r.body.data as Row[]
}

const columnsOf = (type: ReportType) =>
  reportColumns[type].map(([name, kind]) => [String(name), kind] as const)

describe('POST /api/v1/reports/export and GET /api/v1/reports/export/{id}', () => {
  it('exports completions as CSV (RFC 4180, BOM, spec columns) equal cell by cell to the report, downloadable by a plain GET', async () => {
    // Prepare: two completions on courses whose titles start like formulas, one without certificate.
    const t = await newTenant()
    const [u1, u2] = [await user(t), await user(t)]
    const c1 = await formulaCourse(t, '=HYPERLINK("http://x","click"), "quoted"')
    const c2 = await formulaCourse(t, '-2+3 @ Safety')
    await enrollAndComplete(t, u1.id, c1, 72.5, '2026-02-01T10:00:00.000Z')
    await enrollAndComplete(t, u2.id, c2, 40, '2026-03-01T10:00:00.000Z')

    // Act
    const { queued, done, id } = await exportOf(t, {
      report_type: 'completions',
      format: 'csv',
      filters: { sort_by: 'score', sort_order: 'asc' },
      notify_email: 'Reports.Owner@Example.com',
    })
    const bytes = await download(done.body.data.download_url)

    // Assess: the queued answer and the completed job
    expect(queued.headers.location).toBe(`/api/v1/reports/export/${id}`)
    expect(queued.body.data).toMatchObject({
      job_id: id,
      status: 'queued',
      report_type: 'completions',
      format: 'csv',
      progress_percent: 0,
      row_count: null,
      error: null,
      download_url: null,
      created_at: expect.any(String),
      estimated_completion_seconds: expect.any(Number),
    })
    const job = done.body.data
    expect(job).toMatchObject({
      job_id: id,
      status: 'completed',
      progress_percent: 100,
      row_count: 2,
      file_size_bytes: bytes.length,
      truncated: false,
      error: null,
      completed_at: expect.any(String),
    })
    const expiresIn = Date.parse(job.download_url_expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(10 * 60_000)
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000)
    expect(new URL(job.download_url).searchParams.get('X-Amz-Expires')).toBe('900')
    expect(new URL(job.download_url).pathname).toContain(`/tenants/${t.tenant.id}/exports/`)

    // Assess: the file, cell by cell against the JSON rows of the same report and order
    const rows = await jsonRows(t, '/api/v1/reports/completions', '&sort_by=score&sort_order=asc')
    expect(rows).toHaveLength(2)
    const csv = parseCsv(bytes.toString('utf8'))
    expect(csv.bom).toBe(true)
    const columns = columnsOf('completions')
    expect(csv.rows[0]).toEqual(columns.map(([name]) => name))
    expect(csv.rows.slice(1)).toEqual(
      rows.map((row) =>
        columns.map(([name]) => {
          const value = row[name] ?? null
          return value === null ? '' : typeof value === 'string' ? neutralised(value) : String(value)
        }),
      ),
    )
    expect(csv.rows.slice(1).map((r) => r[3])).toEqual([
      `'-2+3 @ Safety`,
      `'=HYPERLINK("http://x","click"), "quoted"`,
    ])

    // Assess: the heads-up mail names the job, never the link or the file
    const [mail] = await until(
      () => listSentMail({ tenantId: t.tenant.id, template: 'export_ready' }),
      (l) => l.length > 0,
    )
    expect(mail?.to.toLowerCase()).toBe('reports.owner@example.com')
    expect(mail?.text).toContain(id)
    expect(mail?.text).not.toContain('http')
    expect(mail?.text).not.toContain('HYPERLINK')
  })

  it('exports enrollments as XLSX with typed cells (numbers, dates, empty nulls) equal to the report', async () => {
    // Prepare: one completed and one open enrollment (null completed_at and due_date)
    const t = await newTenant()
    const c = await formulaCourse(t, '@SUM(1,2)')
    const [u1, u2] = [await user(t), await user(t)]
    await enrollAndComplete(t, u1.id, c, 90, '2026-04-01T08:30:00.250Z')
    expect((await t.api.post('/api/v1/enrollments', { user_id: u2.id, course_id: c.id })).status).toBe(201)

    // Act
    const { done } = await exportOf(t, { report_type: 'enrollments', format: 'xlsx' })
    const bytes = await download(done.body.data.download_url)

    // Assess
    const rows = await jsonRows(t, '/api/v1/reports/enrollments')
    expect(rows).toHaveLength(2)
    expect(done.body.data).toMatchObject({ row_count: 2, file_size_bytes: bytes.length, format: 'xlsx' })
    const sheet = await readXlsx(bytes)
    const columns = columnsOf('enrollments')
    expect(sheet[0]).toEqual(columns.map(([name]) => ({ type: 'text', value: name })))
    const expected = rows.map((row) =>
      columns.map(([name, kind]): XlsxCell => {
        const value = row[name] ?? null
        if (value === null) return { type: 'empty' }
        if (kind === 'date') return { type: 'date', value: String(value) }
        if (typeof value === 'number') return { type: 'number', value }
        return { type: 'text', value: neutralised(String(value)) }
      }),
    )
    expect(sheet.slice(1)).toEqual(expected)
    expect(sheet[1]?.[3]).toEqual({ type: 'text', value: `'@SUM(1,2)` })
  })

  it('refuses a bad body with 400 naming the field, and answers 404 for an unknown or another tenant job', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const { id } = await exportOf(t, { report_type: 'course_performance' })

    // Act
    const bad = async (body: unknown) => {
      const r = await t.api.post('/api/v1/reports/export', body)
      return [r.status, r.body?.error?.message as string] as const
    }
    const cases: [unknown, string][] = [
      [{}, 'report_type'],
      [{ report_type: 'grades' }, 'report_type'],
      [{ report_type: 'completions', format: 'pdf' }, 'format'],
      [{ report_type: 'completions', filters: { pass_fail: 'maybe' } }, 'filters.pass_fail'],
      [{ report_type: 'completions', filters: { colour: 'red' } }, 'filters.colour'],
      [{ report_type: 'completions', filters: { sort_by: 'title' } }, 'filters.sort_by'],
      [{ report_type: 'compliance', filters: { as_of: 'yesterday' } }, 'filters.as_of'],
      [{ report_type: 'compliance', filters: 'all' }, 'filters'],
      [{ report_type: 'completions', notify_email: 'not-an-address' }, 'notify_email'],
    ]

    // Assess
    for (const [body, field] of cases) {
      const [status, message] = await bad(body)
      expect(status, JSON.stringify(body)).toBe(400)
      expect(message, JSON.stringify(body)).toContain(field)
    }
    expect((await other.api.get(`/api/v1/reports/export/${id}`)).status).toBe(404)
    expect((await t.api.get('/api/v1/reports/export/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await t.api.get('/api/v1/reports/export/not-a-uuid')).status).toBe(404)
    const readOnly = await t.key(['read'])
    const viaRead = await t.api.get(`/api/v1/reports/export/${id}`, { key: readOnly })
    expect(viaRead.status).toBe(200)
    expect(viaRead.body.data).toMatchObject({ job_id: id, report_type: 'course_performance', row_count: 0 })
  })
})
