/** Input schemas for users: their inferred types are the service's input types. */
import * as v from 'valibot'
import { Uuid } from '../validation.ts'
import { locales, userTypes, writableRoles } from './user.ts'

export const MAX_GROUP_IDS_ON_CREATE = 100

export const Email = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.email('must be a valid e-mail address'),
  v.maxLength(254),
)
export const Name = v.pipe(v.string(), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(100))
const RoleInput = v.picklist(writableRoles, `must be one of ${writableRoles.join(', ')}`)
const ExternalId = v.nullable(v.pipe(v.string(), v.maxLength(255)))
const CustomFields = v.record(v.string(), v.unknown())
export const LocaleInput = v.picklist(locales, `must be one of ${locales.join(', ')}`)

export const CreateUserInput = v.object({
  email: Email,
  first_name: Name,
  last_name: Name,
  role: RoleInput,
  is_active: v.optional(v.boolean()),
  external_id: v.optional(ExternalId),
  user_type: v.optional(v.picklist(userTypes, `must be one of ${userTypes.join(', ')}`)),
  group_ids: v.optional(
    v.pipe(v.array(Uuid), v.maxLength(MAX_GROUP_IDS_ON_CREATE, 'must hold at most 100 ids')),
  ),
  custom_fields: v.optional(CustomFields),
  locale: v.optional(LocaleInput),
})
export type CreateUserInput = v.InferOutput<typeof CreateUserInput>

export const UpdateUserInput = v.object({
  first_name: v.optional(Name),
  last_name: v.optional(Name),
  role: v.optional(RoleInput),
  is_active: v.optional(v.boolean()),
  external_id: v.optional(ExternalId),
  custom_fields: v.optional(v.nullable(CustomFields)),
  locale: v.optional(LocaleInput),
})
export type UpdateUserInput = v.InferOutput<typeof UpdateUserInput>
