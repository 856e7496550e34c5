/**
 * Cells of the CSV (and XLSX) exports. A spreadsheet evaluates a text cell that starts with `=`,
 * `+`, `-` or `@` as a formula, and some skip a leading tab or CR before looking: such a cell is
 * prefixed with a single quote (OWASP, CSV injection), which spreadsheets show as text and which
 * keeps the rest of the value as it was. Only text is neutralised: a value typed as a number
 * (or boolean) is written as is, so `-3` stays a number while the text `-3` gains the quote.
 */

export type CellValue = string | number | boolean | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/

/** The text as a spreadsheet must receive it; use it for XLSX string cells too. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** One RFC 4180 field: empty for null, neutralised if text, quoted when it must be. */
export function csvCell(value: CellValue): string {
  if (value === null || value === undefined) return ''
  const s = typeof value === 'string' ? neutralizeFormula(value) : String(value)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** A CSV document: UTF-8 BOM (spreadsheets then read accents right), CRLF after every row. */
export function csvDocument(header: readonly string[], rows: readonly (readonly CellValue[])[]): string {
  const lines = [header.map(csvCell).join(','), ...rows.map((row) => row.map(csvCell).join(','))]
  return `\uFEFF${lines.join('\r\n')}\r\n`
}
