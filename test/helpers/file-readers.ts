/**
 * Independent readers of the export files (not the code that writes them, and not exceljs): an
 * RFC 4180 CSV parser, and an XLSX reader that opens the ZIP (jszip) and reads the first sheet's
 * XML, giving each cell's type and value.
 */
import JSZip from 'jszip'

/** Rows of fields; the BOM is kept out and reported. */
export function parseCsv(text: string): { bom: boolean; rows: string[][] } {
  const bom = text.startsWith('\uFEFF')
  const s = bom ? text.slice(1) : text
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        field += '"'
        i++
      } else if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      row.push(field)
      field = ''
    } else if (ch === '\r' && s[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += ch
  }
  if (field !== '' || row.length > 0) throw new Error('The CSV does not end with CRLF')
  return { bom, rows }
}

export type XlsxCell =
  | { readonly type: 'number'; readonly value: number }
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'date'; readonly value: string }
  | { readonly type: 'empty' }

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&')

const columnIndex = (ref: string) =>
  [...(ref.match(/^[A-Z]+/)?.[0] ?? '')].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0) - 1

/** The first sheet as rows of typed cells (a number cell styled with a date format is a date). */
export async function readXlsx(bytes: Buffer): Promise<XlsxCell[][]> {
  const zip = await JSZip.loadAsync(bytes)
  const sheetName = Object.keys(zip.files).find((n) => /^xl\/worksheets\/sheet\d+\.xml$/.test(n))
  if (!sheetName) throw new Error('No worksheet in the file')
  const sheet = await zip.file(sheetName)?.async('string')
  const styles = (await zip.file('xl/styles.xml')?.async('string')) ?? ''
  const shared = (await zip.file('xl/sharedStrings.xml')?.async('string')) ?? ''
  const sharedStrings = [...shared.matchAll(/<si>(.*?)<\/si>/gs)].map((m) =>
    unescape([...(m[1] ?? '').matchAll(/<t[^>]*>(.*?)<\/t>/gs)].map((t) => t[1]).join('')),
  )
  const customFormats = new Map(
    [...styles.matchAll(/<numFmt numFmtId="(\d+)" formatCode="([^"]*)"/g)].map((m) => [m[1], m[2] ?? '']),
  )
  const cellXfs = styles.match(/<cellXfs[^>]*>(.*?)<\/cellXfs>/s)?.[1] ?? ''
  const dateStyles = [...cellXfs.matchAll(/<xf [^>]*?numFmtId="(\d+)"/g)].map((m) => {
    const id = Number(m[1])
    return (id >= 14 && id <= 22) || /[ymdhs]/i.test(customFormats.get(m[1] ?? '') ?? '')
  })
  const rows: XlsxCell[][] = []
  for (const r of (sheet ?? '').matchAll(/<row[^>]*>(.*?)<\/row>/gs)) {
    const cells: XlsxCell[] = []
    for (const c of (r[1] ?? '').matchAll(/<c ([^>]*?)(?:\/>|>(.*?)<\/c>)/gs)) {
      const attrs = c[1] ?? ''
      const body = c[2] ?? ''
      const ref = attrs.match(/r="([A-Z]+\d+)"/)?.[1] ?? ''
      const t = attrs.match(/t="(\w+)"/)?.[1]
      const s = Number(attrs.match(/s="(\d+)"/)?.[1] ?? 0)
      const v = body.match(/<v>(.*?)<\/v>/s)?.[1]
      let cell: XlsxCell
      if (t === 'inlineStr')
        cell = { type: 'text', value: unescape(body.match(/<t[^>]*>(.*?)<\/t>/s)?.[1] ?? '') }
      else if (t === 's') cell = { type: 'text', value: sharedStrings[Number(v)] ?? '' }
      else if (t === 'str') cell = { type: 'text', value: unescape(v ?? '') }
      else if (v === undefined) cell = { type: 'empty' }
      else if (dateStyles[s])
        cell = { type: 'date', value: new Date(Math.round((Number(v) - 25569) * 86_400_000)).toISOString() }
      else cell = { type: 'number', value: Number(v) }
      cells[columnIndex(ref)] = cell
    }
    rows.push(Array.from(cells, (x) => x ?? { type: 'empty' }))
  }
  return rows
}
