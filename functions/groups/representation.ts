import type { Group } from '../../shared/domain/groups/group.ts'

export function toGroupResource(g: Group) {
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
