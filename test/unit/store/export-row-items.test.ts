import { marshall } from '@aws-sdk/util-dynamodb'
import { describe, expect, it } from 'vitest'
import type { Enrollment } from '../../../shared/domain/enrollments/enrollment.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { enrollmentItem } from '../../../shared/store/enrollments/enrollment-items.ts'
import { rowAttributes, toRowEnrollment, type RawItem } from '../../../shared/store/files/export-row-items.ts'
import { MalformedItem } from '../../../shared/store/core/store-errors.ts'
import { aCompletedEnrollment } from '../../helpers/builders.ts'

const tenant: TenantContext = { id: '11111111-1111-4111-8111-111111111111', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'

const enrollment = aCompletedEnrollment(
  {
    dueDate: '2026-04-01T00:00:00.000Z',
    source: 'import',
    certificateExpiresAt: '2027-03-01T10:00:00.000Z',
    language: 'fr',
  },
  at,
)

/** The stored item as a Query projecting the row attributes returns it (AttributeValue form). */
function projected(
  e: Enrollment,
  change: (item: Record<string, unknown>) => void = () => undefined,
): RawItem {
  const item: Record<string, unknown> = enrollmentItem(tenant, e)
  change(item)
  const wanted = Object.fromEntries(rowAttributes.filter((a) => a in item).map((a) => [a, item[a]]))
  return marshall(wanted, { removeUndefinedValues: true }) as RawItem
}

const row = (e: Enrollment) => ({
  id: e.id,
  userId: e.userId,
  courseId: e.courseId,
  status: e.status,
  enrolledAt: e.enrolledAt,
  dueDate: e.dueDate,
  completedAt: e.completedAt,
  source: e.source,
  language: e.language,
  score: e.score,
  passFail: e.passFail,
  timeSpentSeconds: e.timeSpentSeconds,
  certificateId: e.certificateId,
  certificateExpiresAt: e.certificateExpiresAt,
})

describe('Function: toRowEnrollment (an export row read from DynamoDB form)', () => {
  it('reads back what the enrollment writer stored', () => {
    expect(toRowEnrollment(projected(enrollment))).toEqual(row(enrollment))
    const open: Enrollment = {
      ...enrollment,
      status: 'active',
      dueDate: null,
      completedAt: null,
      source: 'native',
      score: null,
      passFail: null,
      certificateId: null,
      certificateExpiresAt: null,
      timeSpentSeconds: 0,
    }
    expect(toRowEnrollment(projected(open))).toEqual(row(open))
  })

  it('reads an older item without language, time spent or optional attributes with their defaults', () => {
    const older = projected(enrollment, (item) => {
      for (const a of ['language', 'time_spent_seconds', 'due_date', 'score', 'pass_fail', 'certificate_id'])
        delete item[a]
    })
    expect(toRowEnrollment(older)).toMatchObject({
      language: 'en',
      timeSpentSeconds: 0,
      dueDate: null,
      score: null,
      passFail: null,
      certificateId: null,
    })
  })

  it.each([
    ['a missing id', (i: Record<string, unknown>) => delete i['id'], 'id: expected string'],
    ['an unknown status', (i: Record<string, unknown>) => (i['status'] = 'paused'), 'status: expected'],
    [
      'a score stored as text',
      (i: Record<string, unknown>) => (i['score'] = 'ninety-two'),
      'score: expected',
    ],
    [
      'a number stored as text',
      (i: Record<string, unknown>) => (i['time_spent_seconds'] = 'x'),
      'time_spent_seconds',
    ],
    [
      'an unknown pass/fail',
      (i: Record<string, unknown>) => (i['pass_fail'] = 'maybe'),
      'pass_fail: expected',
    ],
    [
      'a date stored as a number',
      (i: Record<string, unknown>) => (i['completed_at'] = 5),
      'completed_at: expected',
    ],
  ])('refuses an item with %s, naming the item by its key and the attribute', (_, change, problem) => {
    const item = projected(enrollment, change)
    let error: unknown
    try {
      toRowEnrollment(item)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(MalformedItem)
    expect((error as MalformedItem).key).toEqual({ pk: item['pk']?.S, sk: item['sk']?.S })
    expect((error as MalformedItem).message).toContain(problem)
    // Never the value read (the ids in the key are random, so the marker is a word, not digits).
    expect((error as MalformedItem).message).not.toContain('ninety-two')
  })
})
