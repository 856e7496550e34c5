/**
 * Courses, their versions, modules and categories. The active-course cap is a condition on the
 * tenant's counters item in the same transaction as the publish; module order is a condition on
 * the course's module_count, so concurrent appends never share an index.
 */
import * as v from 'valibot'
import { courseCountsMove } from '../../domain/courses/course-counts.ts'
import { courseStatuses, defaultSettings, type Course } from '../../domain/courses/course.ts'
import { moduleTypes, type Module } from '../../domain/courses/module.ts'
import { noEffects, type Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, getItem, queryAll, type Item } from '../core/db.ts'
import { decodeItem, withDefault } from '../core/decode.ts'
import {
  defineEntity,
  field,
  mapField,
  optionalField,
  optionalMapField,
  sparseField,
} from '../core/entity.ts'
import {
  cond,
  conditionExpression,
  isEmptyUpdate,
  projectionExpression,
  queryExpression,
  updateExpression,
  type UpdateSpec,
} from '../core/expression.ts'
import { indexes, keys, type Key } from '../core/keys.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { skillLevels } from '../../domain/skills/skill.ts'
import { commit, type Step } from '../core/transaction.ts'
import { courseTitleStep } from '../reports/course-report-items.ts'

/**
 * What a refused course write means: `stale` (the course changed meanwhile, or a module append
 * lost its index), `course_cap` (the plan's active courses are all taken), `course_exists`.
 */
export type CourseRefusal = 'stale' | 'course_cap' | 'course_exists'

/** The plan's limit a publish must respect; null for none. */
export interface CourseGuards {
  readonly courseCap: number | null
}

const settingsFields = {
  requiresApproval: sparseField('requires_approval', v.boolean(), false),
  seatLimit: optionalField('seat_limit', v.number()),
  waitlist: sparseField('waitlist', v.boolean(), false),
  enrollmentOpensAt: optionalField('enrollment_opens_at', v.string()),
  enrollmentClosesAt: optionalField('enrollment_closes_at', v.string()),
  prerequisites: sparseField('prerequisites', v.pipe(v.array(v.string()), v.readonly()), []),
  language: field('language', withDefault(v.string(), defaultSettings.language)),
  certificateValidityDays: optionalField('certificate_validity_days', v.number()),
  ceu: sparseField('ceu', v.number(), 0),
  requiresSessionSelection: sparseField('requires_session_selection', v.boolean(), false),
  accessDays: optionalField('access_days', v.number()),
  grantsSkill: optionalMapField('grants_skill', {
    skillId: field('skill_id', v.string()),
    level: field('level', v.picklist(skillLevels)),
  }),
}

/** The listing's search matches title and description ignoring case. */
const searchText = (c: Pick<Course, 'title' | 'description'>) =>
  `${c.title}\n${c.description ?? ''}`.toLowerCase()

/**
 * Empty settings and attributes are not stored (sparse and optional fields): every enrollment and
 * module append rewrites the course in gsi1-3, and a course of a short description then stays under
 * 1 KB with its index entries (decision 0014, addendum 3). `settings` is always rewritten whole.
 * gsi1..3 hold the tenant's courses by created_at, title and updated_at.
 */
const courseEntity = defineEntity(
  'course',
  {
    id: field('id', v.string()),
    title: field('title', v.string()),
    description: optionalField('description', v.string()),
    shortDescription: sparseField('short_description', v.string(), ''),
    status: field('status', v.picklist(courseStatuses)),
    categoryId: optionalField('category_id', v.string()),
    estimatedMinutes: sparseField('estimated_minutes', v.number(), 0),
    currentVersionId: optionalField('current_version_id', v.string()),
    publishedAt: optionalField('published_at', v.string()),
    createdAt: field('created_at', v.string()),
    updatedAt: field('updated_at', v.string()),
    // Stored though zero: the seat and module-order conditions compare them.
    enrollmentCount: field('enrollment_count', withDefault(v.number(), 0)),
    moduleCount: field('module_count', withDefault(v.number(), 0)),
    seatsTaken: field('seats_taken', withDefault(v.number(), 0)),
    settings: mapField('settings', settingsFields),
  },
  {
    key: (tenant: TenantContext, c) => keys.course(tenant, c.id),
    derived: (tenant, c) => {
      const pk = keys.coursesIndexPk(tenant)
      return {
        search_text: searchText(c),
        [indexes.gsi1.pk]: pk,
        [indexes.gsi1.sk]: keys.sortKey(c.createdAt, c.id),
        [indexes.gsi2.pk]: pk,
        [indexes.gsi2.sk]: keys.sortKey(c.title.toLowerCase(), c.id),
        [indexes.gsi3.pk]: pk,
        [indexes.gsi3.sk]: keys.sortKey(c.updatedAt, c.id),
      }
    },
  },
)

/** What a course change may set: the enrollment and module counts move in their own writes. */
const editableFields = [
  'title',
  'description',
  'shortDescription',
  'status',
  'categoryId',
  'estimatedMinutes',
  'publishedAt',
  'settings',
] as const

/** @throws MalformedItem when the item is not a course */
export const courseFromItem = (item: Item): Course => courseEntity.decode(item)

/**
 * The counters' side of a status change; a publish under a cap is conditioned on a free active
 * slot. Undefined when the change moves no count.
 */
function countersStep(
  tenant: TenantContext,
  before: Course | null,
  after: Course,
  guards: CourseGuards,
): Step<CourseRefusal> | undefined {
  const move = courseCountsMove(before?.status ?? null, after.status)
  const add: Record<string, number> = { courses_total: move.total, courses_active: move.active }
  for (const [status, delta] of Object.entries(move.byStatus)) add[`courses_status_${status}`] = delta
  if (isEmptyUpdate({ add })) return undefined
  const cap = move.takesActiveSlot ? guards.courseCap : null
  const roomForOne =
    cap === null ? undefined : cond.or(cond.notExists('courses_active'), cond.lt('courses_active', cap))
  return {
    item: { Update: { Key: keys.counters(tenant), ...updateExpression({ add }, roomForOne) } },
    ...(roomForOne ? { refusal: 'course_cap' as const } : {}),
  }
}

export function getCourseParams(tenant: TenantContext, id: string, { consistent = false } = {}) {
  return { Key: keys.course(tenant, id), ConsistentRead: consistent }
}

/** `consistent` for read-modify-write loops, which must not retry against a stale copy. */
export async function getCourse(
  tenant: TenantContext,
  id: string,
  { consistent = false } = {},
): Promise<Course | undefined> {
  const { Key, ...options } = getCourseParams(tenant, id, { consistent })
  const item = await getItem(Key, options)
  return item ? courseFromItem(item) : undefined
}

const courseKeys = (tenant: TenantContext, ids: readonly string[]): Key[] =>
  [...new Set(ids)].map((id) => keys.course(tenant, id))

export async function getCourses(tenant: TenantContext, ids: readonly string[]): Promise<Course[]> {
  return (await batchGet(courseKeys(tenant, ids))).map(courseFromItem)
}

export interface CourseSummary {
  readonly id: string
  readonly title: string
  readonly ceu: number
}

const CeuItem = v.object({ ceu: withDefault(v.number(), 0) })
const CourseSummaryItem = v.object({
  id: v.string(),
  title: v.string(),
  settings: withDefault(CeuItem, { ceu: 0 }),
})

/** Title and CEU only: a transcript of 500 courses reads a fraction of the whole items. */
export function courseSummariesParams(tenant: TenantContext, ids: readonly string[]) {
  return { Keys: courseKeys(tenant, ids), ...projectionExpression(['id', 'title', 'settings.ceu']) }
}

export async function getCourseSummaries(
  tenant: TenantContext,
  ids: readonly string[],
): Promise<CourseSummary[]> {
  const p = courseSummariesParams(tenant, ids)
  const items = await batchGet(p.Keys, p.ProjectionExpression, p.ExpressionAttributeNames)
  return items.map((item) => {
    const i = decodeItem('course', CourseSummaryItem, item)
    return { id: i.id, title: i.title, ceu: i.settings.ceu }
  })
}

/** A new course, its first version (when it has one) and its place in the tenant's counts. */
export function insertCourseSteps(
  tenant: TenantContext,
  course: Course,
  guards: CourseGuards,
): Step<CourseRefusal>[] {
  const counters = countersStep(tenant, null, course, guards)
  return [
    {
      item: {
        Put: {
          // A new course has none: enrollments and modules move the counts in their own writes.
          Item: courseEntity.item(tenant, { ...course, enrollmentCount: 0, moduleCount: 0, seatsTaken: 0 }),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'course_exists',
    },
    ...(course.currentVersionId
      ? [
          {
            item: {
              Put: {
                Item: {
                  ...keys.courseVersion(tenant, course.id, course.currentVersionId),
                  type: 'course_version',
                  id: course.currentVersionId,
                  course_id: course.id,
                  version_number: 1,
                  created_at: course.createdAt,
                },
              },
            },
          },
        ]
      : []),
    ...(counters ? [counters] : []),
    courseTitleStep(tenant, course.id, course.title),
  ]
}

/** @throws WriteRefused<CourseRefusal> */
export async function insertCourse(
  tenant: TenantContext,
  course: Course,
  guards: CourseGuards,
): Promise<void> {
  await commit(insertCourseSteps(tenant, course, guards))
}

/**
 * The change from `before` (as read) to `after`: the attributes that differ, conditioned on the
 * course being unchanged since the read; the counts its status change moves; its effects.
 */
export function saveCourseSteps(
  tenant: TenantContext,
  change: { readonly before: Course; readonly after: Course },
  guards: CourseGuards,
  effects: Effects = noEffects,
): Step<CourseRefusal>[] {
  const { before, after } = change
  const edited = courseEntity.changeOf(before, after, editableFields)
  const update: UpdateSpec = {
    set: { ...edited.set, updated_at: after.updatedAt, ...courseEntity.derived(tenant, after) },
    remove: edited.remove,
  }
  const unchanged = cond.and(cond.exists(), cond.eq('updated_at', before.updatedAt))
  const counters = countersStep(tenant, before, after, guards)
  return [
    {
      item: { Update: { Key: keys.course(tenant, before.id), ...updateExpression(update, unchanged) } },
      refusal: 'stale',
    },
    ...(counters ? [counters] : []),
    ...effectSteps(tenant, effects),
    ...(after.title !== before.title ? [courseTitleStep(tenant, after.id, after.title)] : []),
  ]
}

/**
 * Writes the change and its effects in one transaction, keeping the status counts and the
 * active-course cap true.
 * @throws WriteRefused<CourseRefusal>: `stale`, `course_cap`
 */
export async function saveCourse(
  tenant: TenantContext,
  change: { readonly before: Course; readonly after: Course },
  guards: CourseGuards,
  effects: Effects = noEffects,
): Promise<void> {
  await commit(saveCourseSteps(tenant, change, guards, effects))
}

/** Declared once here; the module edits (module-edits.ts) write the same items. */
export const moduleEntity = defineEntity(
  'module',
  {
    id: field('id', v.string()),
    courseId: field('course_id', v.string()),
    title: field('title', v.string()),
    description: optionalField('description', v.string()),
    moduleType: field('module_type', v.picklist(moduleTypes)),
    isRequired: field('is_required', withDefault(v.boolean(), true)),
    orderIndex: field('order_index', v.number()),
    createdAt: field('created_at', v.string()),
  },
  { key: (tenant: TenantContext, m) => keys.module(tenant, m.courseId, m.orderIndex) },
)

const moduleFromItem = (item: Item): Module => moduleEntity.decode(item)

/** A course's modules sort by their zero-padded order index. */
export function listModulesParams(tenant: TenantContext, courseId: string) {
  return queryExpression({
    key: cond.and(
      cond.eq('pk', keys.tenantPartition(tenant)),
      cond.beginsWith('sk', keys.modulePrefix(courseId)),
    ),
  })
}

/** `consistent` for the module edits, which rewrite places as read. */
export async function listModules(
  tenant: TenantContext,
  courseId: string,
  { consistent = false } = {},
): Promise<Module[]> {
  return (await queryAll({ ...listModulesParams(tenant, courseId), ConsistentRead: consistent })).map(
    moduleFromItem,
  )
}

/**
 * Appends at index = the course's module_count, conditional on that count being unchanged and the
 * course not archived: either refusal reads `stale` (read the course again).
 */
export function appendModuleSteps(tenant: TenantContext, module: Module): Step<'stale'>[] {
  const countUnchanged = cond.and(cond.eq('module_count', module.orderIndex), cond.ne('status', 'archived'))
  return [
    {
      item: {
        Update: {
          Key: keys.course(tenant, module.courseId),
          ...updateExpression({ set: { module_count: module.orderIndex + 1 } }, countUnchanged),
        },
      },
      refusal: 'stale',
    },
    {
      item: {
        Put: {
          Item: moduleEntity.item(tenant, module),
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'stale',
    },
  ]
}

/** @throws WriteRefused<'stale'> when another append took the index or the course was archived */
export async function appendModule(tenant: TenantContext, module: Module): Promise<void> {
  await commit(appendModuleSteps(tenant, module))
}

export interface Category {
  readonly id: string
  readonly name: string
}

const CategoryNameItem = v.object({ category_id: v.string(), name: v.string() })
const CategoryItem = v.object({ id: v.string(), name: v.string() })

/** Names are unique ignoring case: the guard item is keyed by the lower-cased name. */
export function getCategoryByNameParams(tenant: TenantContext, name: string) {
  return { Key: keys.categoryName(tenant, name.toLowerCase()) }
}

export async function getCategoryByName(tenant: TenantContext, name: string): Promise<Category | undefined> {
  const guard = await getItem(getCategoryByNameParams(tenant, name).Key)
  if (!guard) return undefined
  const i = decodeItem('category name', CategoryNameItem, guard)
  return { id: i.category_id, name: i.name }
}

export function getCategoryParams(tenant: TenantContext, id: string) {
  return { Key: keys.category(tenant, id) }
}

export async function getCategory(tenant: TenantContext, id: string): Promise<Category | undefined> {
  const item = await getItem(getCategoryParams(tenant, id).Key)
  return item ? decodeItem('category', CategoryItem, item) : undefined
}

export function insertCategorySteps(
  tenant: TenantContext,
  category: Category,
): Step<'category_name_taken'>[] {
  return [
    {
      item: {
        Put: {
          Item: {
            ...getCategoryByNameParams(tenant, category.name).Key,
            category_id: category.id,
            name: category.name,
          },
          ...conditionExpression(cond.notExists()),
        },
      },
      refusal: 'category_name_taken',
    },
    {
      item: {
        Put: {
          Item: {
            ...keys.category(tenant, category.id),
            type: 'category',
            id: category.id,
            name: category.name,
          },
        },
      },
    },
  ]
}

/** @throws WriteRefused<'category_name_taken'> when a category of that name (ignoring case) exists */
export async function insertCategory(tenant: TenantContext, category: Category): Promise<void> {
  await commit(insertCategorySteps(tenant, category))
}
