/** How a group and a member read over the API; the types are inferred from the schemas the OpenAPI document shows. */
import * as v from 'valibot'
import type { Group } from '../../shared/domain/groups/group.ts'
import type { User } from '../../shared/domain/users/user.ts'
import { writableRoles } from '../../shared/domain/users/user.ts'

export const GroupSchema = v.object({
  id: v.string(),
  name: v.string(),
  description: v.nullable(v.string()),
  member_count: v.number(),
  kind: v.picklist(['static', 'dynamic']),
  created_at: v.string(),
  updated_at: v.string(),
})

export const GroupMemberSchema = v.object({
  id: v.string(),
  email: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  role: v.picklist(writableRoles),
  added_at: v.string(),
})

export const MembersAddedSchema = v.object({ added: v.number(), skipped: v.number() })
export const MembersRemovedSchema = v.object({ removed: v.number(), skipped: v.number() })

/** The service's counts, shown as they are: the annotation makes the compiler check them against the schema. */
export const toMembersAdded = (r: v.InferOutput<typeof MembersAddedSchema>) => r
export const toMembersRemoved = (r: v.InferOutput<typeof MembersRemovedSchema>) => r

export function toGroupResource(g: Group): v.InferOutput<typeof GroupSchema> {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    member_count: g.memberCount,
    kind: g.kind,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  }
}

export function toGroupMember(m: { user: User; addedAt: string }): v.InferOutput<typeof GroupMemberSchema> {
  return {
    id: m.user.id,
    email: m.user.email,
    first_name: m.user.firstName,
    last_name: m.user.lastName,
    role: m.user.role,
    added_at: m.addedAt,
  }
}
