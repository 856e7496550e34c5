/**
 * Courses, their versions, modules and categories. The active-course cap is a condition on the
 * tenant's counters item in the same transaction as the publish; module order is a condition on
 * the course's module_count, so concurrent appends never share an index.
 */
import type { Course, CourseSettings, CourseStatus, Transition } from '../domain/courses/course.ts'
import { defaultSettings } from '../domain/courses/course.ts'
import type { Module, ModuleType } from '../domain/courses/module.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import {
  batchGet,
  getItem,
  queryAll,
  transact,
  TransactionConditionFailed,
  updateItem,
  type Item,
  type TransactItem,
} from './db.ts'
import { indexes, keys } from './keys.ts'

function toSettings(raw: Record<string, unknown> | undefined): CourseSettings {
  const s = raw ?? {}
  return {
    requiresApproval: s.requires_approval === true,
    seatLimit: (s.seat_limit as number | null | undefined) ?? null,
    waitlist: s.waitlist === true,
    enrollmentOpensAt: (s.enrollment_opens_at as string | null | undefined) ?? null,
    enrollmentClosesAt: (s.enrollment_closes_at as string | null | undefined) ?? null,
    prerequisites: (s.prerequisites as string[] | undefined) ?? [],
    language: (s.language as string | undefined) ?? defaultSettings.language,
    certificateValidityDays: (s.certificate_validity_days as number | null | undefined) ?? null,
    ceu: (s.ceu as number | undefined) ?? 0,
    requiresSessionSelection: s.requires_session_selection === true,
  }
}

function settingsAttributes(s: CourseSettings): Record<string, unknown> {
  return {
    requires_approval: s.requiresApproval,
    seat_limit: s.seatLimit,
    waitlist: s.waitlist,
    enrollment_opens_at: s.enrollmentOpensAt,
    enrollment_closes_at: s.enrollmentClosesAt,
    prerequisites: [...s.prerequisites],
    language: s.language,
    certificate_validity_days: s.certificateValidityDays,
    ceu: s.ceu,
    requires_session_selection: s.requiresSessionSelection,
  }
}

export function toCourse(item: Item): Course {
  return {
    id: item.id as string,
    title: item.title as string,
    description: (item.description as string | null | undefined) ?? null,
    shortDescription: (item.short_description as string | undefined) ?? '',
    status: item.status as CourseStatus,
    categoryId: (item.category_id as string | null | undefined) ?? null,
    estimatedMinutes: (item.estimated_minutes as number | undefined) ?? 0,
    currentVersionId: (item.current_version_id as string | null | undefined) ?? null,
    publishedAt: (item.published_at as string | null | undefined) ?? null,
    createdAt: item.created_at as string,
    updatedAt: item.updated_at as string,
    enrollmentCount: (item.enrollment_count as number | undefined) ?? 0,
    moduleCount: (item.module_count as number | undefined) ?? 0,
    seatsTaken: (item.seats_taken as number | undefined) ?? 0,
    settings: toSettings(item.settings as Record<string, unknown> | undefined),
  }
}

const searchText = (title: string, description: string | null) =>
  `${title}\n${description ?? ''}`.toLowerCase()

function indexAttributes(
  tenant: TenantContext,
  c: Pick<Course, 'id' | 'title' | 'createdAt' | 'updatedAt'>,
): Item {
  const pk = keys.coursesIndexPk(tenant)
  return {
    [indexes.gsi1.pk]: pk,
    [indexes.gsi1.sk]: keys.sortKey(c.createdAt, c.id),
    [indexes.gsi2.pk]: pk,
    [indexes.gsi2.sk]: keys.sortKey(c.title.toLowerCase(), c.id),
    [indexes.gsi3.pk]: pk,
    [indexes.gsi3.sk]: keys.sortKey(c.updatedAt, c.id),
  }
}

/** `consistent` for read-modify-write loops, which must not retry against a stale copy. */
export async function getCourse(
  tenant: TenantContext,
  id: string,
  { consistent = false } = {},
): Promise<Course | undefined> {
  const item = await getItem(keys.course(tenant, id), { ConsistentRead: consistent })
  return item ? toCourse(item) : undefined
}

export async function getCourses(tenant: TenantContext, ids: readonly string[]): Promise<Course[]> {
  return (await batchGet([...new Set(ids)].map((id) => keys.course(tenant, id)))).map(toCourse)
}

export interface CourseSummary {
  readonly id: string
  readonly title: string
  readonly ceu: number
}

/** Title and CEU only: a transcript of 500 courses reads a fraction of the whole items. */
export async function getCourseSummaries(
  tenant: TenantContext,
  ids: readonly string[],
): Promise<CourseSummary[]> {
  const items = await batchGet(
    [...new Set(ids)].map((id) => keys.course(tenant, id)),
    'id, title, settings.ceu',
  )
  return items.map((i) => ({
    id: i.id as string,
    title: i.title as string,
    ceu: ((i.settings as Record<string, unknown> | undefined)?.ceu as number | undefined) ?? 0,
  }))
}

export async function insertCourse(tenant: TenantContext, course: Course): Promise<void> {
  await transact([
    {
      Put: {
        Item: {
          ...keys.course(tenant, course.id),
          type: 'course',
          id: course.id,
          title: course.title,
          description: course.description,
          short_description: course.shortDescription,
          status: course.status,
          category_id: course.categoryId,
          estimated_minutes: course.estimatedMinutes,
          current_version_id: course.currentVersionId,
          published_at: course.publishedAt,
          created_at: course.createdAt,
          updated_at: course.updatedAt,
          enrollment_count: 0,
          module_count: 0,
          seats_taken: 0,
          settings: settingsAttributes(course.settings),
          search_text: searchText(course.title, course.description),
          ...indexAttributes(tenant, course),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(course.currentVersionId
      ? [
          {
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
        ]
      : []),
    {
      Update: {
        Key: keys.counters(tenant),
        UpdateExpression: 'ADD courses_total :one, #s :one',
        ExpressionAttributeNames: { '#s': `courses_status_${course.status}` },
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ])
}

export class StaleCourseError extends Error {}
export class CourseCapReachedError extends Error {}

export interface CourseChanges {
  title?: string
  description?: string | null
  shortDescription?: string
  estimatedMinutes?: number
  status?: CourseStatus
  publishedAt?: string
}

const changeAttributes: [keyof CourseChanges, string][] = [
  ['title', 'title'],
  ['description', 'description'],
  ['shortDescription', 'short_description'],
  ['estimatedMinutes', 'estimated_minutes'],
  ['status', 'status'],
  ['publishedAt', 'published_at'],
]

/**
 * Applies the changes if the course is still as `current` says, keeping the status counters and
 * the active-course cap true in the same transaction.
 * @throws StaleCourseError, CourseCapReachedError
 */
export async function updateCourse(
  tenant: TenantContext,
  current: Course,
  changes: CourseChanges,
  move: Transition,
  courseCap: number | null,
  now: string,
  extra: TransactItem[],
): Promise<Course> {
  const next: Course = {
    ...current,
    ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)),
    updatedAt: now,
  }
  const names: Record<string, string> = { '#updated_at': 'updated_at' }
  const values: Record<string, unknown> = { ':now': now, ':expected': current.updatedAt }
  const sets = ['#updated_at = :now']
  for (const [field, attr] of changeAttributes) {
    if (changes[field] === undefined) continue
    names[`#${attr}`] = attr
    values[`:${attr}`] = changes[field]
    sets.push(`#${attr} = :${attr}`)
  }
  names['#search'] = 'search_text'
  values[':search'] = searchText(next.title, next.description)
  sets.push('#search = :search')
  for (const [i, [attr, value]] of Object.entries(indexAttributes(tenant, next)).entries()) {
    names[`#ix${i}`] = attr
    values[`:ix${i}`] = value
    sets.push(`#ix${i} = :ix${i}`)
  }
  const deltas: Record<string, number> = {}
  if (next.status !== current.status) {
    deltas[`courses_status_${current.status}`] = -1
    deltas[`courses_status_${next.status}`] = 1
  }
  if (move.kind === 'publish') deltas.courses_active = 1
  if (move.kind === 'unpublish' || (move.kind === 'archive' && move.wasPublished)) deltas.courses_active = -1
  const gated = move.kind === 'publish' && courseCap !== null
  const counterNames: Record<string, string> = {}
  const counterValues: Record<string, number> = gated && courseCap !== null ? { ':cap': courseCap } : {}
  const adds = Object.entries(deltas).map(([attr, d], i) => {
    counterNames[`#c${i}`] = attr
    counterValues[`:c${i}`] = d
    return `#c${i} :c${i}`
  })
  const items: TransactItem[] = [
    {
      Update: {
        Key: keys.course(tenant, current.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND #updated_at = :expected',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    ...(adds.length
      ? [
          {
            Update: {
              Key: keys.counters(tenant),
              UpdateExpression: `ADD ${adds.join(', ')}`,
              ...(gated
                ? { ConditionExpression: 'attribute_not_exists(courses_active) OR courses_active < :cap' }
                : {}),
              ExpressionAttributeNames: counterNames,
              ExpressionAttributeValues: counterValues,
            },
          },
        ]
      : []),
    ...extra,
  ]
  try {
    await transact(items)
  } catch (err) {
    if (err instanceof TransactionConditionFailed) {
      if (err.failedAt(0)) throw new StaleCourseError()
      if (adds.length && err.failedAt(1)) throw new CourseCapReachedError()
    }
    throw err
  }
  return next
}

export async function setCourseSettings(
  tenant: TenantContext,
  id: string,
  settings: CourseSettings,
  categoryId: string | null | undefined,
  now: string,
): Promise<Course | undefined> {
  try {
    const item = await updateItem({
      Key: keys.course(tenant, id),
      UpdateExpression: `SET settings = :s, updated_at = :now, #u = :u${categoryId !== undefined ? ', category_id = :c' : ''}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#u': indexes.gsi3.sk },
      ExpressionAttributeValues: {
        ':s': settingsAttributes(settings),
        ':now': now,
        ':u': keys.sortKey(now, id),
        ...(categoryId !== undefined ? { ':c': categoryId } : {}),
      },
      ReturnValues: 'ALL_NEW',
    })
    return item ? toCourse(item) : undefined
  } catch (err) {
    if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return undefined
    throw err
  }
}

function toModule(item: Item): Module {
  return {
    id: item.id as string,
    courseId: item.course_id as string,
    title: item.title as string,
    description: (item.description as string | null | undefined) ?? null,
    moduleType: item.module_type as ModuleType,
    isRequired: item.is_required !== false,
    orderIndex: item.order_index as number,
    createdAt: item.created_at as string,
  }
}

export async function listModules(tenant: TenantContext, courseId: string): Promise<Module[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.modulePrefix(courseId) },
  })
  return items.map(toModule)
}

export class ModuleOrderTakenError extends Error {}
export class CourseArchivedError extends Error {}

/** Appends at index = the course's module_count, conditional on that count being unchanged. */
export async function insertModule(tenant: TenantContext, module: Module): Promise<void> {
  try {
    await transact([
      {
        Update: {
          Key: keys.course(tenant, module.courseId),
          UpdateExpression: 'SET module_count = :next',
          ConditionExpression: 'module_count = :expected AND #status <> :archived',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':next': module.orderIndex + 1,
            ':expected': module.orderIndex,
            ':archived': 'archived',
          },
        },
      },
      {
        Put: {
          Item: {
            ...keys.module(tenant, module.courseId, module.orderIndex),
            type: 'module',
            id: module.id,
            course_id: module.courseId,
            title: module.title,
            description: module.description,
            module_type: module.moduleType,
            is_required: module.isRequired,
            order_index: module.orderIndex,
            created_at: module.createdAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ])
  } catch (err) {
    if (err instanceof TransactionConditionFailed) throw new ModuleOrderTakenError()
    throw err
  }
}

export interface Category {
  readonly id: string
  readonly name: string
}

export async function getCategoryByName(tenant: TenantContext, name: string): Promise<Category | undefined> {
  const guard = await getItem(keys.categoryName(tenant, name.toLowerCase()))
  return guard ? { id: guard.category_id as string, name: guard.name as string } : undefined
}

export async function getCategory(tenant: TenantContext, id: string): Promise<Category | undefined> {
  const item = await getItem(keys.category(tenant, id))
  return item ? { id: item.id as string, name: item.name as string } : undefined
}

/** @returns false when a category of that name (ignoring case) exists already. */
export async function insertCategory(tenant: TenantContext, category: Category): Promise<boolean> {
  try {
    await transact([
      {
        Put: {
          Item: {
            ...keys.categoryName(tenant, category.name.toLowerCase()),
            category_id: category.id,
            name: category.name,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          Item: {
            ...keys.category(tenant, category.id),
            type: 'category',
            id: category.id,
            name: category.name,
          },
        },
      },
    ])
    return true
  } catch (err) {
    if (err instanceof TransactionConditionFailed) return false
    throw err
  }
}
