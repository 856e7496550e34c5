import { describe, expect, it } from 'vitest'
import { defaultSettings, type Course } from '../../../shared/domain/courses/course.ts'
import type { Module } from '../../../shared/domain/courses/module.ts'
import { newEvent } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import {
  coursesQueryParams,
  courseCountsParams,
  listCoursesParams,
} from '../../../shared/store/courses/courses-list.ts'
import {
  appendModuleSteps,
  courseSummariesParams,
  getCategoryByNameParams,
  getCourseParams,
  insertCategorySteps,
  insertCourseSteps,
  listModulesParams,
  saveCourseSteps,
} from '../../../shared/store/courses/courses-store.ts'
import type { TransactItem } from '../../../shared/store/core/db.ts'
import { rendered } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 'ten-1', plan: 'free' }
const pk = 'T#ten-1'
const draft: Course = {
  id: 'c1',
  title: 'Safety',
  description: 'Basics',
  shortDescription: '',
  status: 'draft',
  categoryId: null,
  estimatedMinutes: 30,
  currentVersionId: 'v1',
  publishedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  enrollmentCount: 4,
  moduleCount: 2,
  seatsTaken: 1,
  settings: defaultSettings,
}
const at = '2026-02-01T00:00:00.000Z'

const update = (item: TransactItem) => {
  const u = item.Update
  if (!u) throw new Error('not an update')
  return {
    key: u.Key,
    update: rendered(u.UpdateExpression, u),
    condition: rendered(u.ConditionExpression, u),
  }
}

describe('Params: reading courses', () => {
  it('reads a course by its tenant-first key, consistently when asked', () => {
    expect(getCourseParams(tenant, 'c1', { consistent: true })).toEqual({
      Key: { pk, sk: 'COURSE#c1' },
      ConsistentRead: true,
    })
    expect(getCourseParams(tenant, 'c1').ConsistentRead).toBe(false)
  })

  it('reads transcript summaries with title and CEU only, each course once', () => {
    const p = courseSummariesParams(tenant, ['c1', 'c2', 'c1'])
    expect(p.Keys).toEqual([
      { pk, sk: 'COURSE#c1' },
      { pk, sk: 'COURSE#c2' },
    ])
    expect(rendered(p.ProjectionExpression, p)).toBe('id, title, settings.ceu')
  })

  it('lists a course’s modules in its partition by their prefix', () => {
    const p = listModulesParams(tenant, 'c1')
    expect(rendered(p.KeyConditionExpression, p)).toBe('(pk = "T#ten-1") AND (begins_with(sk, "MODULE#c1#"))')
  })
})

describe('Params: creating a course', () => {
  it('puts the course only if new, its first version, and counts it as a draft', () => {
    // Act
    const [course, version, counters, title, ...rest] = insertCourseSteps(tenant, draft, { courseCap: 3 })

    // Assess
    expect(rest).toEqual([])
    // The report tally holds the title for the report rows (decision 0026).
    expect(title?.item.Update?.Key).toEqual({ pk, sk: 'RPTCOURSE#c1' })
    expect(rendered(title?.item.Update?.UpdateExpression, title?.item.Update ?? {})).toBe(
      `SET title = "${draft.title}", course_id = "c1", type = "course_report"`,
    )
    expect(course?.refusal).toBe('course_exists')
    expect(course?.item.Put?.Item).toMatchObject({
      pk,
      sk: 'COURSE#c1',
      status: 'draft',
      enrollment_count: 0,
      module_count: 0,
      seats_taken: 0,
      search_text: 'safety\nbasics',
      gsi2pk: `${pk}#COURSES`,
      gsi2sk: 'safety#c1',
    })
    expect(rendered(course?.item.Put?.ConditionExpression, course?.item.Put ?? {})).toBe(
      'attribute_not_exists(pk)',
    )
    expect(version?.item.Put?.Item).toMatchObject({ pk, sk: 'COURSEVER#c1#v1', version_number: 1 })
    expect(version?.refusal).toBeUndefined()
    expect(update(counters?.item ?? {})).toEqual({
      key: { pk, sk: 'COUNTERS' },
      update: 'ADD courses_total 1, courses_status_draft 1',
      condition: undefined,
    })
    expect(counters?.refusal).toBeUndefined()
  })
})

describe('Params: changing a course', () => {
  it('publishes under a cap: sets what changed if unchanged since read, takes a slot if one is free', () => {
    // Prepare
    const after: Course = { ...draft, status: 'published', publishedAt: at, updatedAt: at }
    const event = newEvent('course.published', { courseId: 'c1', title: 'Safety' }, at)

    // Act
    const steps = saveCourseSteps(tenant, { before: draft, after }, { courseCap: 3 }, { events: [event] })

    // Assess
    const [course, counters, outbox] = steps
    expect(steps).toHaveLength(3)
    expect(course?.refusal).toBe('stale')
    const c = update(course?.item ?? {})
    expect(c.key).toEqual({ pk, sk: 'COURSE#c1' })
    expect(c.condition).toBe(`(attribute_exists(pk)) AND (updated_at = "${draft.updatedAt}")`)
    expect(c.update).toMatch(
      /^SET status = "published", published_at = "2026-02-01T00:00:00.000Z", updated_at = /,
    )
    expect(c.update).toContain(`gsi3sk = "${at}#c1"`)
    // Unchanged attributes and the counts other writes move are never set
    expect(c.update).not.toMatch(/\btitle =|enrollment_count|module_count|seats_taken|settings/)
    expect(counters?.refusal).toBe('course_cap')
    expect(update(counters?.item ?? {})).toEqual({
      key: { pk, sk: 'COUNTERS' },
      update: 'ADD courses_active 1, courses_status_draft -1, courses_status_published 1',
      condition: '(attribute_not_exists(courses_active)) OR (courses_active < 3)',
    })
    expect(outbox?.item.Put?.Item).toMatchObject({ pk, event: 'course.published', event_id: event.id })
  })

  it('publishes without a condition on the counters when the plan has no cap', () => {
    const after: Course = { ...draft, status: 'published', publishedAt: at, updatedAt: at }
    const [, counters] = saveCourseSteps(tenant, { before: draft, after }, { courseCap: null })
    expect(counters?.refusal).toBeUndefined()
    expect(counters?.item.Update?.ConditionExpression).toBeUndefined()
  })

  it('frees the slot, never conditioned, when a published course is archived', () => {
    const published: Course = { ...draft, status: 'published', publishedAt: at }
    const after: Course = { ...published, status: 'archived', updatedAt: at }
    const [, counters] = saveCourseSteps(tenant, { before: published, after }, { courseCap: 3 })
    expect(counters?.refusal).toBeUndefined()
    expect(update(counters?.item ?? {})).toEqual({
      key: { pk, sk: 'COUNTERS' },
      update: 'ADD courses_active -1, courses_status_published -1, courses_status_archived 1',
      condition: undefined,
    })
  })

  it('writes no counters for a change that keeps the status, and sets settings and category', () => {
    // Prepare
    const after: Course = {
      ...draft,
      title: 'Safety 2',
      categoryId: 'cat-1',
      settings: { ...defaultSettings, seatLimit: 10 },
      updatedAt: at,
    }

    // Act
    const steps = saveCourseSteps(tenant, { before: draft, after }, { courseCap: 3 })

    // Assess
    // The course, and the title its report tally holds (a rename moves it).
    expect(steps).toHaveLength(2)
    expect(steps[1]?.item.Update?.Key).toEqual({ pk, sk: 'RPTCOURSE#c1' })
    expect(
      saveCourseSteps(tenant, { before: draft, after: { ...draft, updatedAt: at } }, { courseCap: 3 }),
    ).toHaveLength(1)
    const c = update(steps[0]?.item ?? {})
    expect(c.update).toMatch(/^SET title = "Safety 2", category_id = "cat-1", settings = /)
    expect(c.update).toContain('search_text = "safety 2\\nbasics"')
    expect(Object.values(steps[0]?.item.Update?.ExpressionAttributeValues ?? {})).toContainEqual(
      expect.objectContaining({ seat_limit: 10, language: 'en' }),
    )
  })
})

describe('Params: appending a module', () => {
  it('takes index module_count only while the count is unchanged and the course not archived', () => {
    // Prepare
    const module: Module = {
      id: 'm1',
      courseId: 'c1',
      title: 'Intro',
      description: null,
      moduleType: 'video',
      isRequired: true,
      orderIndex: 2,
      createdAt: at,
    }

    // Act
    const [course, put] = appendModuleSteps(tenant, module)

    // Assess
    expect(course?.refusal).toBe('stale')
    expect(update(course?.item ?? {})).toEqual({
      key: { pk, sk: 'COURSE#c1' },
      update: 'SET module_count = 3',
      condition: '(module_count = 2) AND (status <> "archived")',
    })
    expect(put?.refusal).toBe('stale')
    expect(put?.item.Put?.Item).toMatchObject({ pk, sk: 'MODULE#c1#000002', order_index: 2, id: 'm1' })
    expect(rendered(put?.item.Put?.ConditionExpression, put?.item.Put ?? {})).toBe('attribute_not_exists(pk)')
  })
})

describe('Params: categories', () => {
  it('guards the name ignoring case, refusing a taken name by name', () => {
    // Act
    const [guard, category] = insertCategorySteps(tenant, { id: 'cat-1', name: 'Safety First' })

    // Assess
    expect(getCategoryByNameParams(tenant, 'SAFETY first').Key).toEqual({
      pk,
      sk: 'CATEGORYNAME#safety first',
    })
    expect(guard?.refusal).toBe('category_name_taken')
    expect(guard?.item.Put?.Item).toEqual({
      pk,
      sk: 'CATEGORYNAME#safety first',
      category_id: 'cat-1',
      name: 'Safety First',
    })
    expect(rendered(guard?.item.Put?.ConditionExpression, guard?.item.Put ?? {})).toBe(
      'attribute_not_exists(pk)',
    )
    expect(category?.item.Put?.Item).toEqual({
      pk,
      sk: 'CATEGORY#cat-1',
      type: 'category',
      id: 'cat-1',
      name: 'Safety First',
    })
  })
})

describe('Params: the courses listing', () => {
  const base = { sortBy: 'title', order: 'asc', offset: 0, limit: 20 } as const

  it('queries the order’s index of the tenant’s courses, leaving archived out by default', () => {
    const p = coursesQueryParams(tenant, base)
    expect(p.IndexName).toBe('gsi2')
    expect(p.ScanIndexForward).toBe(true)
    expect(rendered(p.KeyConditionExpression, p)).toBe(`gsi2pk = "${pk}#COURSES"`)
    expect(rendered(p.FilterExpression, p)).toBe('status <> "archived"')
  })

  it('filters by status, category, lower-cased search and created_after together', () => {
    const p = coursesQueryParams(tenant, {
      ...base,
      sortBy: 'updated_at',
      order: 'desc',
      status: 'published',
      categoryId: 'cat-1',
      search: 'SaFe',
      createdAfter: at,
    })
    expect(p.IndexName).toBe('gsi3')
    expect(p.ScanIndexForward).toBe(false)
    expect(rendered(p.FilterExpression, p)).toBe(
      `(status = "published") AND (category_id = "cat-1") AND (contains(search_text, "safe")) AND (created_at > "${at}")`,
    )
  })

  it('reads past the offset with room for filtered items, at most 1000 per call', () => {
    expect(listCoursesParams(tenant, { ...base, offset: 40, limit: 20 }).Limit).toBe(140)
    expect(listCoursesParams(tenant, { ...base, offset: 900, limit: 100 }).Limit).toBe(1000)
  })

  it('reads the course counts only from the counters item', () => {
    const p = courseCountsParams(tenant)
    expect(p.Key).toEqual({ pk, sk: 'COUNTERS' })
    expect(rendered(p.ProjectionExpression, p)).toBe(
      'courses_total, courses_status_draft, courses_status_published, courses_status_archived',
    )
  })
})
