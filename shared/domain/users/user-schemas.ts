/** Input schemas for users: their inferred types are the service's input types. */
import * as v from 'valibot'
import { MAX_CUSTOM_FIELDS_BYTES, text, textChecks, textRules, utf8Bytes } from '../text-rules.ts'
import { JsonObject, Uuid } from '../validation.ts'
import { CUSTOM_FIELD_KEY } from './custom-fields.ts'
import { locales, userTypes, writableRoles } from './user.ts'

export const MAX_GROUP_IDS_ON_CREATE = 100

/**
 * An address as RFC 5322 writes one without quotes or comments: a local part of "atext" characters
 * (letters, digits and ! # $ % & ' * + / = ? ^ _ ` { | } ~ -, so `o'brien@…` is valid) in dot-separated
 * runs, at most 64 characters, then a domain of letters, digits and inner hyphens with a top-level
 * label of letters. ASCII only: SES sends no internationalised local part (decision 0027).
 */
const ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9]+(?:[.-][a-z0-9]+)*\.[a-z]{2,}$/i

export const Email = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  ...textChecks(textRules.email),
  v.regex(ADDRESS, 'must be a valid e-mail address'),
  v.check((s) => s.indexOf('@') <= 64, 'must be a valid e-mail address (at most 64 characters before @)'),
)
export const Name = text(textRules.personName, { trimmed: true, required: true })
const RoleInput = v.picklist(writableRoles, `must be one of ${writableRoles.join(', ')}`)
const ExternalId = v.nullable(text(textRules.externalId))
/**
 * Keys and size only: the values are checked against the tenant's definitions by the service. The
 * size bounds the user item however many string fields a tenant defines.
 */
const CustomFields = v.pipe(
  JsonObject,
  v.description(
    `Values of the tenant's custom fields by key; at most ${MAX_CUSTOM_FIELDS_BYTES} bytes as JSON in UTF-8.`,
  ),
  v.check(
    (fields) => Object.keys(fields).every((k) => CUSTOM_FIELD_KEY.test(k)),
    'keys must be custom field keys (a lowercase letter, then up to 63 lowercase letters, digits or underscores)',
  ),
  v.check(
    (fields) => utf8Bytes(JSON.stringify(fields)) <= MAX_CUSTOM_FIELDS_BYTES,
    `must be at most ${MAX_CUSTOM_FIELDS_BYTES} bytes as JSON in UTF-8`,
  ),
)
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

/** What a PATCH may change: the create fields but the e-mail, type and groups; custom fields may be cleared. */
export const UpdateUserInput = v.object({
  ...v.partial(v.omit(CreateUserInput, ['email', 'user_type', 'group_ids'])).entries,
  custom_fields: v.optional(v.nullable(CustomFields)),
})
export type UpdateUserInput = v.InferOutput<typeof UpdateUserInput>
