/** Valibot glue: parse or throw a ValidationError that names the failing field. */
import * as v from 'valibot'
import { ValidationError } from './errors.ts'

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

export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'))

/** ISO 8601 with a UTC offset (`Z` or `+hh:mm`), as the list conventions require. */
export const Timestamp = v.pipe(
  v.string(),
  v.regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/,
    'must be an ISO 8601 timestamp with offset',
  ),
  v.check((s) => !Number.isNaN(Date.parse(s)), 'must be a valid date'),
  v.transform((s) => new Date(s).toISOString()),
)

/** A query-string boolean: only `true` and `false` are accepted. */
export const QueryBoolean = v.pipe(
  v.picklist(['true', 'false'], 'must be true or false'),
  v.transform((s) => s === 'true'),
)
