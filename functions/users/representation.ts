/**
 * How a user reads over the API: list items carry the base fields, single reads the whole user.
 * The schemas are the representation's declaration: its TypeScript type is inferred from them and
 * the OpenAPI document is generated from them (functions/docs), so the two cannot differ.
 */
import * as v from 'valibot'
import { locales, userTypes, writableRoles } from '../../shared/domain/users/user.ts'
import { CONTENT_AUTHOR_ROLE, type User } from '../../shared/domain/users/user.ts'

export const UserListItemSchema = v.object({
  id: v.string(),
  email: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  role: v.picklist(writableRoles),
  is_active: v.boolean(),
  external_id: v.nullable(v.string()),
  created_at: v.string(),
})

export const UserSchema = v.object({
  ...UserListItemSchema.entries,
  user_type: v.picklist(userTypes),
  locale: v.picklist(locales),
  group_ids: v.array(v.string()),
  custom_fields: v.record(v.string(), v.unknown()),
  custom_roles: v.array(v.object({ id: v.string(), name: v.string() })),
  last_login_at: v.nullable(v.string()),
  updated_at: v.string(),
})

export function toUserListItem(u: User): v.InferOutput<typeof UserListItemSchema> {
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

export function toUserResource(u: User): v.InferOutput<typeof UserSchema> {
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
