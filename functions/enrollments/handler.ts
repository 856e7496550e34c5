/** Route group `enrollments`: enrollments (single and bulk), progress, and completions. */
import {
  BulkEnrollmentInput,
  CreateEnrollmentInput,
  enrollmentSorts,
  ListEnrollmentsFilters,
  refusalMessages,
  UpdateEnrollmentInput,
} from '../../shared/domain/enrollments/enrollment.ts'
import { ApproveEnrollmentInput, DenyEnrollmentInput } from '../../shared/domain/enrollments/lifecycle.ts'
import { ValidationError } from '../../shared/domain/errors.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { created, envelope, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import { approveEnrollment, denyEnrollment } from '../../shared/services/enrollments/enrollment-lifecycle.ts'
import * as enrollments from '../../shared/services/enrollments/enrollments-service.ts'
import type { EnrollRow } from '../../shared/services/enrollments/enrollment-engine.ts'
import { CompletionsQuery } from './queries.ts'
import { toCompletion, toEnrollmentResource, toProgress, type BulkResult } from './representation.ts'

export const listEnrollments = route('GET /api/v1/enrollments', async ({ tenant, query }) => {
  const f = parseOrThrow(ListEnrollmentsFilters, query)
  const page = paging(query)
  const sort = sorting(query, enrollmentSorts, { by: 'enrolled_at', order: 'desc' })
  const { items, total } = await enrollments.listEnrollments(tenant, {
    userId: f.user_id,
    courseId: f.course_id,
    status: f.status,
    groupId: f.group_id,
    dueBefore: f.due_before,
    dueAfter: f.due_after,
    createdAfter: f.created_after,
    sortBy: sort.by,
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toEnrollmentResource), listMeta(page, total))
})

export const createEnrollment = route('POST /api/v1/enrollments', async ({ tenant, body }) => {
  const input = parseBody(CreateEnrollmentInput, body)
  const e = await enrollments.createEnrollment(tenant, {
    userId: input.user_id,
    courseId: input.course_id,
    dueDate: input.due_date ?? null,
  })
  return created(toEnrollmentResource(e))
})

/** Each row is validated on its own: a malformed row is that row's error, not the request's. */
export const bulkEnroll = route('POST /api/v1/enrollments/bulk', async ({ tenant, body }) => {
  const { enrollments: raw } = parseBody(BulkEnrollmentInput, body)
  const rows: (EnrollRow | { invalid: string })[] = raw.map((row, index) => {
    try {
      const r = parseOrThrow(CreateEnrollmentInput, row, `enrollments[${index}]`)
      return { userId: r.user_id, courseId: r.course_id, dueDate: r.due_date ?? null }
    } catch (err) {
      if (err instanceof ValidationError) return { invalid: err.message }
      throw err
    }
  })
  const valid = rows.flatMap((r, index) => ('invalid' in r ? [] : [{ index, row: r }]))
  const results = await enrollments.bulkEnroll(
    tenant,
    valid.map((x) => x.row),
  )
  const errors: BulkResult['errors'] = []
  const createdRows: BulkResult['enrollments'] = []
  rows.forEach((r, index) => {
    if ('invalid' in r) errors.push({ index, code: 'invalid_row', message: r.invalid })
  })
  valid.forEach(({ index }, k) => {
    const result = results[k]
    if (!result) return
    if ('error' in result) errors.push({ index, code: result.error, message: refusalMessages[result.error] })
    else createdRows.push({ index, id: result.ok.id, status: result.ok.status })
  })
  errors.sort((a, b) => a.index - b.index)
  const data: BulkResult = {
    created: createdRows.length,
    skipped: errors.length,
    errors,
    enrollments: createdRows,
  }
  return envelope(errors.length === 0 ? 201 : 207, data)
})

export const getEnrollment = route('GET /api/v1/enrollments/{id}', async ({ tenant, ...input }) => {
  return ok(
    toEnrollmentResource(await enrollments.getEnrollment(tenant, pathId(input, 'id', 'enrollment', Uuid))),
  )
})

export const updateEnrollment = route(
  'PATCH /api/v1/enrollments/{id}',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'enrollment', Uuid)
    const { due_date } = parseBody(UpdateEnrollmentInput, body, {})
    return ok(toEnrollmentResource(await enrollments.setDueDate(tenant, id, due_date)))
  },
)

export const dropEnrollment = route('DELETE /api/v1/enrollments/{id}', async ({ tenant, ...input }) => {
  await enrollments.dropEnrollment(tenant, pathId(input, 'id', 'enrollment', Uuid))
  return noContent()
})

/** The decisions of `lms enrollment approve|deny` (api-additions section 4), by the same services. */
export const approvePendingEnrollment = route(
  'POST /api/v1/enrollments/{id}/approve',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'enrollment', Uuid)
    parseBody(ApproveEnrollmentInput, body, {})
    return ok(toEnrollmentResource(await approveEnrollment(tenant, id)))
  },
)

export const denyPendingEnrollment = route(
  'POST /api/v1/enrollments/{id}/deny',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'enrollment', Uuid)
    const { reason } = parseBody(DenyEnrollmentInput, body, {})
    return ok(toEnrollmentResource(await denyEnrollment(tenant, id, undefined, reason || null)))
  },
)

export const getProgress = route('GET /api/v1/enrollments/{id}/progress', async ({ tenant, ...input }) => {
  return ok(toProgress(await enrollments.getProgress(tenant, pathId(input, 'id', 'enrollment', Uuid))))
})

export const listCompletions = route('GET /api/v1/completions', async ({ tenant, query }) => {
  const { user_id } = parseOrThrow(CompletionsQuery, query)
  const page = paging(query)
  const { items, total } = await enrollments.listCompletions(tenant, {
    userId: user_id,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toCompletion), listMeta(page, total))
})

export const handler = httpStack([
  listEnrollments,
  createEnrollment,
  bulkEnroll,
  getEnrollment,
  updateEnrollment,
  dropEnrollment,
  approvePendingEnrollment,
  denyPendingEnrollment,
  getProgress,
  listCompletions,
])
