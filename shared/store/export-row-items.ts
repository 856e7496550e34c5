/**
 * What an export reads of an enrollment: the attributes its rows are made of (completions,
 * enrollments, compliance), asked for by a ProjectionExpression. The index entry is read whole all
 * the same (DynamoDB bills the Query by the entries' size), but the response, its parsing and the
 * objects the worker makes are a fraction of the item's (no modules, quiz attempts or index keys).
 */
import * as v from 'valibot'
import { enrollmentStatuses, type Enrollment } from '../domain/enrollments/enrollment.ts'
import type { Item } from './db.ts'
import { decodeItem, nullable, withDefault } from './decode.ts'

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

const RowItem = v.object({
  id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  status: v.picklist(enrollmentStatuses),
  enrolled_at: v.string(),
  due_date: nullable(v.string()),
  completed_at: nullable(v.string()),
  source: v.picklist(['native', 'import']),
  language: withDefault(v.string(), 'en'),
  score: nullable(v.number()),
  pass_fail: nullable(v.picklist(['pass', 'fail'])),
  time_spent_seconds: withDefault(v.number(), 0),
  certificate_id: nullable(v.string()),
  certificate_expires_at: nullable(v.string()),
})

/** The attributes read: the row's, and the keys (a malformed item is named by its key). */
export const rowAttributes: readonly string[] = ['pk', 'sk', ...Object.keys(RowItem.entries)]

/** @throws MalformedItem when the item does not hold an enrollment's row attributes */
export function toRowEnrollment(item: Item): RowEnrollment {
  const i = decodeItem('enrollment', RowItem, item)
  return {
    id: i.id,
    userId: i.user_id,
    courseId: i.course_id,
    status: i.status,
    enrolledAt: i.enrolled_at,
    dueDate: i.due_date,
    completedAt: i.completed_at,
    source: i.source,
    language: i.language,
    score: i.score,
    passFail: i.pass_fail,
    timeSpentSeconds: i.time_spent_seconds,
    certificateId: i.certificate_id,
    certificateExpiresAt: i.certificate_expires_at,
  }
}
