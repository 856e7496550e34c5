/**
 * The rules every free-text input follows, on every channel (API, CLI, sign-up, contact): a size
 * in UTF-8 bytes that keeps the item holding it far below DynamoDB's 400 KB, a size in characters
 * where the contract states one, well-formed Unicode, and no control characters (a single line
 * refuses every one; a text keeps tab and line breaks). See docs/decisions/0006.
 */
import * as v from 'valibot'

export interface TextRule {
  /** UTF-16 code units, as `maxLength` counts them (what the contract calls characters). */
  readonly maxChars: number
  /** UTF-8 bytes: what the item stores. */
  readonly maxBytes: number
  /** `single`: names, e-mails, titles. `multi`: descriptions and messages (tab, LF, CR allowed). */
  readonly lines: 'single' | 'multi'
}

const rule = (maxChars: number, maxBytes: number, lines: TextRule['lines']): TextRule => ({
  maxChars,
  maxBytes,
  lines,
})

/**
 * Every free-text field and its limits. A course item holds its title and description twice (the
 * lowercased search text, up to 1.5 times the bytes), so the description's 64 KiB is its budget;
 * the other fields are far smaller than any item limit.
 */
export const textRules = {
  email: rule(254, 254, 'single'),
  personName: rule(100, 300, 'single'),
  externalId: rule(255, 765, 'single'),
  customFieldValue: rule(1000, 3000, 'multi'),
  customFieldLabel: rule(100, 300, 'single'),
  customFieldOption: rule(200, 600, 'single'),
  organizationName: rule(100, 300, 'single'),
  courseTitle: rule(300, 900, 'single'),
  courseDescription: rule(64 * 1024, 64 * 1024, 'multi'),
  shortDescription: rule(500, 1500, 'multi'),
  moduleTitle: rule(300, 900, 'single'),
  moduleDescription: rule(2000, 6000, 'multi'),
  groupName: rule(200, 600, 'single'),
  groupDescription: rule(2000, 6000, 'multi'),
  categoryName: rule(200, 600, 'single'),
  contactCompany: rule(200, 600, 'single'),
  contactSubject: rule(200, 600, 'single'),
  contactMessage: rule(5000, 15_000, 'multi'),
  searchQuery: rule(200, 600, 'multi'),
  jobRoleName: rule(150, 450, 'single'),
  jobRoleDescription: rule(1000, 3000, 'multi'),
  skillName: rule(200, 600, 'single'),
  decisionReason: rule(1000, 3000, 'multi'),
  skillDescription: rule(1000, 3000, 'multi'),
} as const satisfies Record<string, TextRule>

/** A user's custom_fields as stored (JSON, UTF-8): bounds the user item whatever the definitions. */
export const MAX_CUSTOM_FIELDS_BYTES = 32 * 1024

/** Unicode Cc (C0, DEL, C1) and the line and paragraph separators: never on a single line. */
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
/** Cc except tab, LF and CR. */
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
/** With the `u` flag a paired surrogate is one code point: only a lone half matches. */
const LONE_SURROGATE = /\p{Cs}/u

const encoder = new TextEncoder()

export function utf8Bytes(s: string): number {
  return encoder.encode(s).length
}

/** What is wrong with `s` under `r`, as the end of a message (`must be ...`); undefined if nothing. */
export function textProblem(r: TextRule, s: string): string | undefined {
  if (s.length > r.maxChars) return `must be at most ${r.maxChars} characters`
  if (utf8Bytes(s) > r.maxBytes) return `must be at most ${r.maxBytes} bytes in UTF-8`
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode text'
  if (r.lines === 'single' && SINGLE_LINE_FORBIDDEN.test(s)) {
    return 'must not contain control characters, tabs or line breaks'
  }
  if (r.lines === 'multi' && MULTI_LINE_FORBIDDEN.test(s)) {
    return 'must not contain control characters other than tab and line breaks'
  }
  return undefined
}

const SINGLE_LINE_FORBIDDEN_ALL = new RegExp(SINGLE_LINE_FORBIDDEN.source, 'g')
const MULTI_LINE_FORBIDDEN_ALL = new RegExp(MULTI_LINE_FORBIDDEN.source, 'g')
const LONE_SURROGATE_ALL = /\p{Cs}/gu
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })

/**
 * `s` made to pass `r`, for text that arrives from elsewhere and must be taken, not refused (an
 * LTI platform's name claims): lone surrogates dropped, forbidden characters turned to spaces,
 * then cut at a whole character (a grapheme: never half an emoji or a letter without its accent)
 * to the rule's characters and bytes. The caller trims and falls back when nothing is left.
 * @example fitText(textRules.personName, 'Ada\u0000 ' + '😀'.repeat(200)) // 'Ada  😀😀…' (75 emoji: 300 bytes)
 */
export function fitText(r: TextRule, s: string): string {
  const forbidden = r.lines === 'single' ? SINGLE_LINE_FORBIDDEN_ALL : MULTI_LINE_FORBIDDEN_ALL
  const clean = s.replace(LONE_SURROGATE_ALL, '').replace(forbidden, ' ')
  let out = ''
  let bytes = 0
  for (const { segment } of graphemes.segment(clean)) {
    const size = utf8Bytes(segment)
    if (out.length + segment.length > r.maxChars || bytes + size > r.maxBytes) break
    out += segment
    bytes += size
  }
  return out
}

function describe(r: TextRule): string {
  const lines =
    r.lines === 'single'
      ? 'no control characters, tabs or line breaks'
      : 'no control characters other than tab and line breaks'
  return `At most ${r.maxChars} characters and ${r.maxBytes} bytes in UTF-8; ${lines}.`
}

/** The rule as valibot actions; `maxLength` and the description are for the API description (OpenAPI). */
export function textChecks(r: TextRule) {
  return [
    v.description<string, string>(describe(r)),
    v.maxLength<string, number, string>(r.maxChars, `must be at most ${r.maxChars} characters`),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return
      const problem = textProblem(r, dataset.value)
      if (problem) addIssue({ message: problem })
    }),
  ] as const
}

/**
 * A string field under `r`. `trimmed` strips surrounding whitespace first (a trailing newline on a
 * name is not refused, it is dropped); `required` then refuses what is left empty.
 */
export function text(
  r: TextRule,
  options: { trimmed?: boolean; required?: boolean } = {},
): v.GenericSchema<string, string> {
  const checks = textChecks(r)
  if (options.required && options.trimmed) {
    return v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty'), ...checks)
  }
  if (options.required) return v.pipe(v.string(), v.nonEmpty('must not be empty'), ...checks)
  if (options.trimmed) return v.pipe(v.string(), v.trim(), ...checks)
  return v.pipe(v.string(), ...checks)
}
