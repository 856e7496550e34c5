import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../shared/domain/errors.ts'
import {
  MAX_CUSTOM_FIELDS_BYTES,
  text,
  textProblem,
  textRules,
  utf8Bytes,
  type TextRule,
} from '../../../shared/domain/text-rules.ts'
import { parseOrThrow } from '../../../shared/domain/validation.ts'

const DYNAMODB_ITEM_LIMIT = 400 * 1024
const single: TextRule = { maxChars: 10, maxBytes: 12, lines: 'single' }
const multi: TextRule = { maxChars: 10, maxBytes: 12, lines: 'multi' }

describe('Function: textProblem', () => {
  it('counts characters as UTF-16 units and size as UTF-8 bytes', () => {
    expect(textProblem(single, 'x'.repeat(10))).toBeUndefined()
    expect(textProblem(single, 'x'.repeat(11))).toBe('must be at most 10 characters')
    expect(textProblem(single, '中'.repeat(4))).toBeUndefined()
    expect(textProblem(single, '中'.repeat(5))).toBe('must be at most 12 bytes in UTF-8')
  })

  it.each(['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f', '\u2028'])(
    'Attack: refuses %j on a single line',
    (c) => {
      expect(textProblem(single, `a${c}b`)).toMatch(/control characters/)
    },
  )

  it('keeps tab and line breaks in a text, and refuses the other control characters there', () => {
    expect(textProblem(multi, 'a\tb\nc\r\nd')).toBeUndefined()
    expect(textProblem(multi, 'a\u2028b')).toBeUndefined()
    for (const c of ['\u0000', '\u0008', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085']) {
      expect(textProblem(multi, `a${c}b`)).toMatch(/control characters/)
    }
  })

  it('Attack: refuses a lone surrogate, accepts a paired one', () => {
    expect(textProblem(single, 'a\ud800b')).toBe('must be valid Unicode text')
    expect(textProblem(single, 'a\udc00')).toBe('must be valid Unicode text')
    expect(textProblem(single, 'a😀b')).toBeUndefined()
  })
})

describe('Function: text', () => {
  it('trims before checking when asked, so surrounding whitespace is dropped, not refused', () => {
    const name = text(single, { trimmed: true, required: true })
    expect(v.parse(name, '\t Ada \n')).toBe('Ada')
    expect(() => parseOrThrow(name, ' \t ', 'name')).toThrow(/^name: must not be empty$/)
    expect(() => parseOrThrow(name, 'A\u0000da', 'name')).toThrow(ValidationError)
  })

  it('keeps the value as sent when not trimmed', () => {
    expect(v.parse(text(multi), ' a\n')).toBe(' a\n')
  })

  it('names the field in the error', () => {
    expect(() => parseOrThrow(v.object({ title: text(single) }), { title: 'x'.repeat(11) })).toThrow(
      /^title: must be at most 10 characters$/,
    )
  })
})

describe('Module: text rules', () => {
  it('fits any ASCII text within a character limit, and no byte budget exceeds what the characters can hold', () => {
    for (const [name, rule] of Object.entries(textRules)) {
      expect(rule.maxBytes, name).toBeGreaterThanOrEqual(rule.maxChars)
      expect(rule.maxBytes, name).toBeLessThanOrEqual(rule.maxChars * 3)
    }
  })

  it('keeps a course item, which stores title and description twice, under half the item limit', () => {
    // The lowercased search text: no code point grows by more than half in UTF-8 (İ → i̇).
    const r = textRules
    const stored = r.courseTitle.maxBytes + r.courseDescription.maxBytes
    const searchText = 1.5 * (stored + 1)
    const budget = stored + searchText + r.shortDescription.maxBytes
    expect(budget).toBeLessThan(DYNAMODB_ITEM_LIMIT / 2)
  })

  it('keeps a user item under a tenth of the item limit', () => {
    const r = textRules
    const budget =
      r.email.maxBytes * 2 + r.personName.maxBytes * 3 + r.externalId.maxBytes + MAX_CUSTOM_FIELDS_BYTES
    expect(budget).toBeLessThan(DYNAMODB_ITEM_LIMIT / 10)
  })

  it('measures UTF-8', () => {
    expect(utf8Bytes('a中😀')).toBe(1 + 3 + 4)
  })

  it('relies on lowercasing growing a text by at most half, and to at most 3 bytes per UTF-16 unit', () => {
    let growth = 0
    let perUnit = 0
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const s = String.fromCodePoint(cp)
      const lower = s.toLowerCase()
      if (lower === s) continue
      growth = Math.max(growth, utf8Bytes(lower) / utf8Bytes(s))
      perUnit = Math.max(perUnit, utf8Bytes(lower) / s.length)
    }
    expect(growth).toBe(1.5)
    expect(perUnit).toBe(3)
  })

  it('keeps lowercased titles and names, with an id, within a sort key (1,024 bytes)', () => {
    const id = 36
    for (const rule of [
      textRules.courseTitle,
      textRules.groupName,
      textRules.categoryName,
      textRules.personName,
    ]) {
      expect(3 * rule.maxChars + 1 + id + '#CATEGORYNAME'.length).toBeLessThanOrEqual(1024)
    }
  })
})
