import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { CompletionRow } from '../../../shared/domain/reports/rows.ts'
import { writeCsv, writeXlsx } from '../../../shared/exports/report-files.ts'
import { parseCsv, readXlsx } from '../../helpers/file-readers.ts'

const rows: CompletionRow[] = [
  {
    enrollment_id: 'e-1',
    user_id: 'u-1',
    course_id: 'c-1',
    course_title: 'Safety, "Level 1" — été',
    completed_at: '2026-02-01T10:00:00.000Z',
    language: 'fr-CA',
    score: 72.5,
    pass_fail: 'pass',
    time_spent_seconds: 300,
    certificate_id: 'cert-1',
  },
  {
    enrollment_id: 'e-2',
    user_id: 'u-2',
    course_id: 'c-2',
    course_title: '=HYPERLINK("http://evil")',
    completed_at: '2025-06-01T00:00:00.000Z',
    language: 'en',
    score: null,
    pass_fail: null,
    time_spent_seconds: 0,
    certificate_id: null,
  },
]

/** The rows as the worker hands them over, in batches: here one row each, so rows span batches. */
async function* each<T>(list: readonly T[]) {
  for (const x of list) yield [x]
}

async function bytesOf(write: (out: PassThrough) => Promise<number>): Promise<{ n: number; bytes: Buffer }> {
  const out = new PassThrough()
  const chunks: Buffer[] = []
  out.on('data', (c: Buffer) => chunks.push(c))
  const ended = new Promise((resolve) => out.on('end', resolve))
  const n = await write(out)
  await ended
  return { n, bytes: Buffer.concat(chunks) }
}

const header = Object.keys(rows[0] ?? {})

describe('Export files', () => {
  it('writes CSV per RFC 4180 with a BOM, the row fields as columns in order, nulls empty, formulas neutralised', async () => {
    const { n, bytes } = await bytesOf((out) => writeCsv('completions', each(rows), out))
    const { bom, rows: parsed } = parseCsv(bytes.toString('utf8'))
    expect(n).toBe(2)
    expect(bom).toBe(true)
    expect(parsed).toEqual([
      header,
      [
        'e-1',
        'u-1',
        'c-1',
        'Safety, "Level 1" — été',
        '2026-02-01T10:00:00.000Z',
        'fr-CA',
        '72.5',
        'pass',
        '300',
        'cert-1',
      ],
      ['e-2', 'u-2', 'c-2', `'=HYPERLINK("http://evil")`, '2025-06-01T00:00:00.000Z', 'en', '', '', '0', ''],
    ])
  })

  it('writes XLSX with one header row and typed cells: numbers, dates, empty nulls, neutralised text', async () => {
    const { n, bytes } = await bytesOf((out) => writeXlsx('completions', each(rows), out))
    const sheet = await readXlsx(bytes)
    expect(n).toBe(2)
    expect(sheet[0]).toEqual(header.map((value) => ({ type: 'text', value })))
    expect(sheet[1]).toEqual([
      { type: 'text', value: 'e-1' },
      { type: 'text', value: 'u-1' },
      { type: 'text', value: 'c-1' },
      { type: 'text', value: 'Safety, "Level 1" — été' },
      { type: 'date', value: '2026-02-01T10:00:00.000Z' },
      { type: 'text', value: 'fr-CA' },
      { type: 'number', value: 72.5 },
      { type: 'text', value: 'pass' },
      { type: 'number', value: 300 },
      { type: 'text', value: 'cert-1' },
    ])
    expect(sheet[2]?.[3]).toEqual({ type: 'text', value: `'=HYPERLINK("http://evil")` })
    expect(sheet[2]?.[6]).toEqual({ type: 'empty' })
    expect(sheet[2]?.[9] ?? { type: 'empty' }).toEqual({ type: 'empty' })
    expect(sheet).toHaveLength(3)
  })
})
