/** Route group `groups`: static groups over the API; dynamic ones (CLI) refuse member edits. */
import {
  AddMembersInput,
  CreateGroupInput,
  GroupSearchQuery,
  RemoveMembersInput,
  UpdateGroupInput,
} from '../../shared/domain/groups/group.ts'
import { parseBody, parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging, sorting } from '../../shared/http/list-query.ts'
import { created, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as groups from '../../shared/services/groups/groups-service.ts'
import { groupSorts } from './queries.ts'
import { toGroupMember, toGroupResource, toMembersAdded, toMembersRemoved } from './representation.ts'

export const listGroups = route('GET /api/v1/groups', async ({ tenant, query }) => {
  const { search } = parseOrThrow(GroupSearchQuery, query)
  const page = paging(query)
  const sort = sorting(query, groupSorts, { by: 'created_at', order: 'asc' })
  const { items, total } = await groups.listGroups(tenant, {
    search,
    sortBy: sort.by,
    order: sort.order,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toGroupResource), listMeta(page, total))
})

export const createGroup = route('POST /api/v1/groups', async ({ tenant, body }) => {
  const input = parseBody(CreateGroupInput, body)
  return created(toGroupResource(await groups.createGroup(tenant, input)))
})

export const getGroup = route('GET /api/v1/groups/{id}', async ({ tenant, ...input }) => {
  return ok(toGroupResource(await groups.getGroup(tenant, pathId(input, 'id', 'group', Uuid))))
})

export const updateGroup = route('PATCH /api/v1/groups/{id}', async ({ tenant, body, ...input }) => {
  const id = pathId(input, 'id', 'group', Uuid)
  const changes = parseBody(UpdateGroupInput, body, {})
  return ok(toGroupResource(await groups.updateGroup(tenant, id, changes)))
})

export const deleteGroup = route('DELETE /api/v1/groups/{id}', async ({ tenant, ...input }) => {
  await groups.deleteGroup(tenant, pathId(input, 'id', 'group', Uuid))
  return noContent()
})

export const listMembers = route('GET /api/v1/groups/{id}/members', async ({ tenant, query, ...input }) => {
  const id = pathId(input, 'id', 'group', Uuid)
  const { search } = parseOrThrow(GroupSearchQuery, query)
  const page = paging(query)
  const { items, total } = await groups.listMembers(tenant, id, {
    search,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toGroupMember), listMeta(page, total))
})

export const addMembers = route('POST /api/v1/groups/{id}/members', async ({ tenant, body, ...input }) => {
  const id = pathId(input, 'id', 'group', Uuid)
  const { user_ids } = parseBody(AddMembersInput, body)
  return ok(toMembersAdded(await groups.addMembers(tenant, id, user_ids)))
})

export const removeMembers = route(
  'DELETE /api/v1/groups/{id}/members',
  async ({ tenant, body, ...input }) => {
    const id = pathId(input, 'id', 'group', Uuid)
    const { user_ids } = parseBody(RemoveMembersInput, body)
    return ok(toMembersRemoved(await groups.removeMembers(tenant, id, user_ids)))
  },
)

export const handler = httpStack([
  listGroups,
  createGroup,
  getGroup,
  updateGroup,
  deleteGroup,
  listMembers,
  addMembers,
  removeMembers,
])
