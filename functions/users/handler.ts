/** Route group `users`: thin handlers that validate, call the users service and shape the answer. */
import { httpStack } from '../../shared/http/stack.ts'
import { route, pathId } from '../../shared/http/route.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { CreateUserInput, UpdateUserInput } from '../../shared/domain/users/user-schemas.ts'
import * as users from '../../shared/services/users/users-service.ts'
import { ListUsersFilters, TranscriptQuery, userSorts } from './list-users-query.ts'
import { toUserListItem, toUserResource } from './representation.ts'
import { transcriptResponse } from './transcript.ts'
import { buildTranscript } from '../../shared/services/reports/transcript-service.ts'

export const listUsers = route('GET /api/v1/users', async ({ tenant, query }) => {
  const filters = parseOrThrow(ListUsersFilters, query)
  const page = paging(query)
  const sort = sorting(query, userSorts, { by: 'created_at', order: 'desc' })
  const { items, total } = await users.listUsers(tenant, {
    role: filters.role,
    isActive: filters.is_active,
    userType: filters.user_type,
    groupId: filters.group_id,
    createdAfter: filters.created_after,
    createdBefore: filters.created_before,
    sortBy: sort.by,
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toUserListItem), listMeta(page, total))
})

export const createUser = route('POST /api/v1/users', async ({ tenant, actor, body }) => {
  const input = parseBody(CreateUserInput, body)
  return created(toUserResource(await users.createUser(tenant, input, actor)))
})

export const getUser = route('GET /api/v1/users/{id}', async ({ tenant, ...input }) => {
  const id = pathId(input, 'id', 'user', Uuid)
  return ok(toUserResource(await users.getUser(tenant, id)))
})

export const updateUser = route('PATCH /api/v1/users/{id}', async ({ tenant, actor, body, ...input }) => {
  const id = pathId(input, 'id', 'user', Uuid)
  const changes = parseBody(UpdateUserInput, body, {})
  return ok(toUserResource(await users.updateUser(tenant, id, changes, actor)))
})

export const deactivateUser = route('DELETE /api/v1/users/{id}', async ({ tenant, ...input }) => {
  await users.deactivateUser(tenant, pathId(input, 'id', 'user', Uuid))
  return noContent()
})

export const getTranscript = route(
  'GET /api/v1/users/{id}/transcript',
  async ({ tenant, query, ...input }) => {
    const id = pathId(input, 'id', 'user', Uuid)
    const q = parseOrThrow(TranscriptQuery, query)
    await users.getUser(tenant, id)
    const transcript = await buildTranscript(tenant, id, {
      completedAfter: q.completed_after,
      completedBefore: q.completed_before,
      status: q.status,
      type: q.type,
      year: q.year,
    })
    return transcriptResponse(transcript, q.format ?? 'json')
  },
)

export const handler = httpStack([listUsers, createUser, getUser, updateUser, deactivateUser, getTranscript])
