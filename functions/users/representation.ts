/** How a user reads over the API: list items carry the base fields, single reads the whole user. */
import { CONTENT_AUTHOR_ROLE, type User } from '../../shared/domain/users/user.ts'

export function toUserListItem(u: User) {
  return {
    id: u.id,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    role: u.role,
    is_active: u.isActive,
    external_id: u.externalId,
    created_at: u.createdAt,
  }
}

const customRoleNames: Record<string, string> = { [CONTENT_AUTHOR_ROLE.id]: CONTENT_AUTHOR_ROLE.name }

export function toUserResource(u: User) {
  return {
    ...toUserListItem(u),
    user_type: u.userType,
    locale: u.locale,
    group_ids: [...u.groupIds],
    custom_fields: { ...u.customFields },
    custom_roles: u.customRoleIds.map((id) => ({ id, name: customRoleNames[id] ?? id })),
    last_login_at: u.lastLoginAt,
    updated_at: u.updatedAt,
  }
}
