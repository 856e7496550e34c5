/** Valibot glue: parse or throw a ValidationError that names the failing field. */
import * as v from 'valibot'
import { ValidationError } from './errors.ts'

/** Whether `value` is one of `list`'s words (an enumeration declared `as const`). */
export function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value)
}

function fieldOf(issue: v.BaseIssue<unknown>, prefix: string): string {
  const path = (issue.path ?? [])
    .map((p) => (typeof p.key === 'number' ? `[${p.key}]` : String(p.key)))
    .join('.')
    .replace(/\.\[/g, '[')
  if (!path) return prefix || 'body'
  return prefix ? `${prefix}.${path}` : path
}

function messageOf(issue: v.BaseIssue<unknown>, field: string): string {
  if (issue.kind === 'schema' && issue.input === undefined) return `${field} is required`
  return `${field}: ${issue.message}`
}

/**
 * @example parseOrThrow(CreateUserBody, event.body) // throws ValidationError('email', 'email is required')
 */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix = '',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: true })
  if (result.success) return result.output
  const issue = result.issues[0]
  const field = fieldOf(issue, prefix)
  throw new ValidationError(field, messageOf(issue, field))
}

/**
 * A request's JSON body parsed by `schema`. A body must be a JSON object: an array, `null` or a
 * scalar is refused naming `body` (never read as "no change"). Without a body, `absent` is parsed
 * instead (a PATCH's `{}`), or the schema reports the body as required.
 * @example parseBody(UpdateUserInput, [], {}) // throws ValidationError('body', 'The body must be a JSON object')
 */
export function parseBody<S extends v.GenericSchema>(
  schema: S,
  body: unknown,
  absent?: Record<string, never>,
): v.InferOutput<S> {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new ValidationError('body', 'The body must be a JSON object')
  }
  return parseOrThrow(schema, body ?? absent)
}

/** A JSON object: `v.record` would take an array (as `{}`), which no field of objects means. */
export const JsonObject = v.custom<Record<string, unknown>>(
  (o) => typeof o === 'object' && o !== null && !Array.isArray(o),
  'must be an object',
)

/** DynamoDB's smallest magnitude (below it, a number is refused rather than rounded to zero). */
const STORABLE_NUMBER_MIN = 1e-130

/**
 * A finite number the store can hold and give back as the same JSON number: zero, or a magnitude
 * from DynamoDB's smallest (1e-130) to the largest safe integer. DynamoDB itself goes up to
 * 9.99...e125, but the document client's marshaller (@aws-sdk/util-dynamodb) refuses a number beyond
 * the safe integers unless it is a bigint, and reads one back as a bigint, which JSON cannot carry.
 * (DynamoDB's 38 significant digits are never the limit: a JSON number parses to a double.)
 * @example isStorableNumber(1e126) // false
 */
export function isStorableNumber(n: number): boolean {
  if (!Number.isFinite(n)) return false
  const m = Math.abs(n)
  return m === 0 || (m >= STORABLE_NUMBER_MIN && m <= Number.MAX_SAFE_INTEGER)
}

export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'))

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):(\d{2}))$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
/** Days of `month` (1-12) in the proleptic Gregorian calendar (Date.UTC would read years 0-99 as 19xx). */
const daysIn = (year: number, month: number) =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** A real day of the calendar (no 30 February), of a four-digit year. */
function isCalendarDay(year: string, month: string, day: string): boolean {
  const m = Number(month)
  const d = Number(day)
  return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(Number(year), m)
}

/**
 * The UTC instant an ISO 8601 timestamp with an offset names, as `toISOString` writes it, or
 * undefined when it names none that round-trips: an impossible day or time (`2026-02-30`, `24:00`,
 * an offset beyond 23:59), or an instant whose UTC year leaves 0000..9999 once the offset is
 * applied (`9999-12-31T23:59:59-23:59`). Stored timestamps compare as strings, which holds only
 * for four-digit years. Every channel that takes a timestamp (API, CLI) reads it here.
 * @example utcInstant('2026-01-01T01:00:00+01:00') // '2026-01-01T00:00:00.000Z'
 */
export function utcInstant(s: string): string | undefined {
  const m = TIMESTAMP.exec(s)
  if (!m) return undefined
  const [, year = '', month = '', day = '', hour = '', minute = '', second = '0', , , , oh = '0', om = '0'] =
    m
  if (!isCalendarDay(year, month, day)) return undefined
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined
  if (Number(oh) > 23 || Number(om) > 59) return undefined
  const ms = Date.parse(s)
  if (Number.isNaN(ms)) return undefined
  const iso = new Date(ms).toISOString()
  return /^\d{4}-/.test(iso) ? iso : undefined
}

/** A calendar date `YYYY-MM-DD` that exists (no 30 February). */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s)
  return m !== null && isCalendarDay(m[1] ?? '', m[2] ?? '', m[3] ?? '')
}

/**
 * ISO 8601 with a UTC offset (`Z` or `+hh:mm`), as the list conventions require, that names a real
 * instant of a four-digit UTC year (utcInstant); the output is that instant in UTC.
 */
export const Timestamp = v.pipe(
  v.string(),
  v.regex(TIMESTAMP, 'must be an ISO 8601 timestamp with offset'),
  v.check(
    (s) => utcInstant(s) !== undefined,
    'must be a valid date and time between years 0000 and 9999 in UTC',
  ),
  v.transform((s) => utcInstant(s) ?? s),
)

/**
 * `schema` with its range's two timestamp bounds checked in order on the parsed object, so every
 * schema that holds the pair (a report's GET route, its export's filters, a listing) refuses the
 * same ranges, naming the lower bound. `exclusive` bounds (`_after` / `_before`: strictly between)
 * must differ, since equal ones hold nothing; `inclusive` bounds (a period, both ends in) may be equal.
 * @example withRange(v.object({ a: v.optional(Timestamp), b: v.optional(Timestamp) }), 'a', 'b', 'exclusive')
 */
export function withRange<
  S extends v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>,
>(
  schema: S,
  lower: keyof S['entries'] & string,
  upper: keyof S['entries'] & string,
  bounds: 'exclusive' | 'inclusive',
) {
  return v.pipe(
    schema,
    v.rawCheck<v.InferOutput<S>>(({ dataset, addIssue }) => {
      if (!dataset.typed) return
      const value = dataset.value as Record<string, unknown>
      const low = value[lower]
      const high = value[upper]
      if (typeof low !== 'string' || typeof high !== 'string') return
      if (bounds === 'exclusive' ? low < high : low <= high) return
      addIssue({
        message: bounds === 'exclusive' ? `must be before ${upper}` : `must not be after ${upper}`,
        path: [{ type: 'object', origin: 'value', input: value, key: lower, value: low }],
      })
    }),
  )
}

/** A query-string boolean: only `true` and `false` are accepted. */
export const QueryBoolean = v.pipe(
  v.picklist(['true', 'false'], 'must be true or false'),
  v.transform((s) => s === 'true'),
)
