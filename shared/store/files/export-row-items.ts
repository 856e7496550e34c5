/**
 * What an export reads of an enrollment: the attributes its rows are made of (completions,
 * enrollments, compliance), asked for by a ProjectionExpression. The index entry is read whole all
 * the same (DynamoDB bills the Query by the entries' size), but the response, its parsing and the
 * objects the worker makes are a fraction of the item's (no modules, quiz attempts or index keys).
 *
 * The items are decoded straight from DynamoDB's AttributeValue form (db.ts queryRaw): an export
 * reads up to 50,000 of them, and the document client's unmarshall followed by a valibot parse of
 * each made two more objects per item and a third of the reads' CPU (docs/decisions/0018). The
 * checks are the item schema's all the same: a missing or mistyped attribute fails the item, named
 * by its key, as decodeItem does.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import {
  enrollmentStatuses,
  type Enrollment,
  type EnrollmentStatus,
} from '../../domain/enrollments/enrollment.ts'
import { MalformedItem } from '../core/store-errors.ts'

export type RowEnrollment = Pick<
  Enrollment,
  | 'id'
  | 'userId'
  | 'courseId'
  | 'status'
  | 'enrolledAt'
  | 'dueDate'
  | 'completedAt'
  | 'source'
  | 'language'
  | 'score'
  | 'passFail'
  | 'timeSpentSeconds'
  | 'certificateId'
  | 'certificateExpiresAt'
>

export type RawItem = Record<string, AttributeValue | undefined>

/** The row attributes, in the order of RowEnrollment's fields. */
const ROW_FIELDS = [
  'id',
  'user_id',
  'course_id',
  'status',
  'enrolled_at',
  'due_date',
  'completed_at',
  'source',
  'language',
  'score',
  'pass_fail',
  'time_spent_seconds',
  'certificate_id',
  'certificate_expires_at',
] as const

/** The attributes read: the row's, and the keys (a malformed item is named by its key). */
export const rowAttributes: readonly string[] = ['pk', 'sk', ...ROW_FIELDS]

const STATUSES: ReadonlySet<string> = new Set(enrollmentStatuses)
const SOURCES: ReadonlySet<string> = new Set(['native', 'import'])
const PASS_FAIL: ReadonlySet<string> = new Set(['pass', 'fail'])

/** Thrown inside the decoder and turned into MalformedItem with the item's key. */
class Problem {
  constructor(readonly text: string) {}
}

function text(item: RawItem, name: string): string {
  const s = item[name]?.S
  if (s === undefined) throw new Problem(`${name}: expected string`)
  return s
}

/** Absent or NULL reads as null (older items), else a string. */
function nullableText(item: RawItem, name: string): string | null {
  const value = item[name]
  if (value === undefined || value.NULL === true) return null
  if (value.S === undefined) throw new Problem(`${name}: expected (string | null)`)
  return value.S
}

function oneOf(item: RawItem, name: string, allowed: ReadonlySet<string>): string {
  const s = item[name]?.S
  if (s === undefined || !allowed.has(s)) throw new Problem(`${name}: expected ${[...allowed].join(' | ')}`)
  return s
}

/** A stored number (DynamoDB sends it as text); absent reads as `absent`, NULL as null when allowed. */
function numberOf(item: RawItem, name: string, absent: number | null, nullable: boolean): number | null {
  const value = item[name]
  if (value === undefined) return absent
  if (nullable && value.NULL === true) return null
  const n = value.N === undefined ? Number.NaN : Number(value.N)
  if (Number.isNaN(n)) throw new Problem(`${name}: expected ${nullable ? '(number | null)' : 'number'}`)
  return n
}

/** @throws MalformedItem when the item does not hold an enrollment's row attributes */
export function toRowEnrollment(item: RawItem): RowEnrollment {
  try {
    const passFail = item['pass_fail']
    return {
      id: text(item, 'id'),
      userId: text(item, 'user_id'),
      courseId: text(item, 'course_id'),
      status: oneOf(item, 'status', STATUSES) as EnrollmentStatus,
      enrolledAt: text(item, 'enrolled_at'),
      dueDate: nullableText(item, 'due_date'),
      completedAt: nullableText(item, 'completed_at'),
      source: oneOf(item, 'source', SOURCES) as 'native' | 'import',
      language: item['language'] === undefined ? 'en' : text(item, 'language'),
      score: numberOf(item, 'score', null, true),
      passFail:
        passFail === undefined || passFail.NULL === true
          ? null
          : (oneOf(item, 'pass_fail', PASS_FAIL) as 'pass' | 'fail'),
      timeSpentSeconds: numberOf(item, 'time_spent_seconds', 0, false) as number,
      certificateId: nullableText(item, 'certificate_id'),
      certificateExpiresAt: nullableText(item, 'certificate_expires_at'),
    }
  } catch (err) {
    if (!(err instanceof Problem)) throw err
    throw new MalformedItem('enrollment', { pk: item['pk']?.S, sk: item['sk']?.S }, err.text)
  }
}
