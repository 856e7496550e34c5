/**
 * The export files, written row by row into a stream so memory stays flat however many rows there
 * are: CSV per RFC 4180 (UTF-8 with BOM, CRLF) and XLSX through exceljs's streaming writer (one
 * header row, numbers as numbers, dates as dates, nulls empty). Columns are the report's row
 * fields in the spec's order (reportColumns); text that a spreadsheet would read as a formula is
 * neutralised in both formats (shared/domain/csv/cell.ts).
 */
import type { Writable } from 'node:stream'
import ExcelJS from 'exceljs'
import { csvCell, neutralizeFormula } from '../domain/csv/cell.ts'
import { reportColumns, type ColumnKind, type ReportRows, type ReportType } from '../domain/reports/rows.ts'

export type ExportFormat = 'csv' | 'xlsx'

type Value = string | number | boolean | null | undefined

function columnsOf<R extends ReportType>(type: R): readonly (readonly [string, ColumnKind])[] {
  return reportColumns[type] as readonly (readonly [string, ColumnKind])[]
}

const valueOf = (row: object, field: string): Value => (row as Record<string, Value>)[field]

/** Resolves when the stream can take more (backpressure): a slow upload slows the writer. */
function write(out: Writable, chunk: string): Promise<void> | undefined {
  if (out.write(chunk)) return undefined
  return new Promise((resolve) => out.once('drain', resolve))
}

/** The rows, handed over in batches (a page of the read): see services/files/export-rows.ts. */
export type RowBatches<R extends ReportType> = AsyncIterable<readonly ReportRows[R][]>

export async function writeCsv<R extends ReportType>(
  type: R,
  batches: RowBatches<R>,
  out: Writable,
): Promise<number> {
  const columns = columnsOf(type)
  await write(out, `\uFEFF${columns.map(([name]) => csvCell(name)).join(',')}\r\n`)
  let count = 0
  for await (const rows of batches) {
    for (const row of rows) {
      await write(out, `${columns.map(([name]) => csvCell(valueOf(row, name))).join(',')}\r\n`)
      count += 1
    }
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  )
  return count
}

/** A typed spreadsheet cell: a Date for a date column, a number, or neutralised text. */
function xlsxCell(kind: ColumnKind, value: Value): ExcelJS.CellValue {
  if (value === null || value === undefined) return null
  if (kind === 'date' && typeof value === 'string') return new Date(value)
  if (typeof value === 'string') return neutralizeFormula(value)
  return value
}

const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss'

/**
 * One style object per kind, shared by every cell: exceljs caches a cell's style id by the style
 * object's identity, so shared objects are looked up once, where a style per cell (exceljs's own
 * copy of the column's style) is turned into XML and looked up for each cell.
 */
const DATE_STYLE: Partial<ExcelJS.Style> = Object.freeze({ numFmt: DATE_FORMAT })
const PLAIN_STYLE: Partial<ExcelJS.Style> = Object.freeze({})
/** The same for rows (exceljs gives each row a style object of its own, looked up when written). */
const ROW_STYLE: Partial<ExcelJS.Style> = Object.freeze({})

/**
 * Deflate level of the XLSX (a zip): 1, the fastest, as exceljs's default already came to (same
 * size); level 6 makes the file about a quarter smaller for a quarter more of the writer's CPU
 * (docs/decisions/0018, figures). Said here so that a dependency update cannot change it unseen.
 */
export const XLSX_ZIP_LEVEL = { level: 1 }

export async function writeXlsx<R extends ReportType>(
  type: R,
  batches: RowBatches<R>,
  out: Writable,
): Promise<number> {
  const columns = columnsOf(type)
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
    zip: { zlib: { level: XLSX_ZIP_LEVEL.level } },
  })
  const sheet = workbook.addWorksheet(type)
  sheet.columns = columns.map(([name]) => ({
    header: name,
    key: name,
    width: Math.max(12, name.length + 2),
  }))
  const names = columns.map(([name]) => name)
  const kinds = columns.map(([, kind]) => kind)
  const styles = kinds.map((kind) => (kind === 'date' ? DATE_STYLE : PLAIN_STYLE))
  const values: ExcelJS.CellValue[] = new Array<ExcelJS.CellValue>(columns.length)
  let count = 0
  for await (const rows of batches) {
    for (const row of rows) {
      for (let i = 0; i < names.length; i++) {
        values[i] = xlsxCell(kinds[i] as ColumnKind, valueOf(row, names[i] as string))
      }
      const added = sheet.addRow(values)
      // exceljs's Row holds its style in `style` but does not declare it.
      ;(added as unknown as { style: Partial<ExcelJS.Style> }).style = ROW_STYLE
      for (let i = 0; i < styles.length; i++) added.getCell(i + 1).style = styles[i] as Partial<ExcelJS.Style>
      added.commit()
      count += 1
    }
  }
  sheet.commit()
  await workbook.commit()
  return count
}

export function writeReportFile<R extends ReportType>(
  format: ExportFormat,
  type: R,
  batches: RowBatches<R>,
  out: Writable,
): Promise<number> {
  return format === 'csv' ? writeCsv(type, batches, out) : writeXlsx(type, batches, out)
}
