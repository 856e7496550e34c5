import * as v from 'valibot'
import { QueryBoolean, Timestamp, Uuid, withRange } from '../../shared/domain/validation.ts'
import { userTypes, writableRoles } from '../../shared/domain/users/user.ts'

/** The filters of GET /api/v1/users; paging and sorting follow the shared list conventions. */
export const ListUsersFilters = withRange(
  v.object({
    role: v.optional(v.picklist(writableRoles, `must be one of ${writableRoles.join(', ')}`)),
    is_active: v.optional(QueryBoolean),
    user_type: v.optional(v.picklist(userTypes, `must be one of ${userTypes.join(', ')}`)),
    group_id: v.optional(Uuid),
    created_after: v.optional(Timestamp),
    created_before: v.optional(Timestamp),
  }),
  'created_after',
  'created_before',
  'exclusive',
)

export const userSorts = ['created_at', 'last_name', 'email'] as const

export const TranscriptQuery = v.object({
  completed_after: v.optional(Timestamp),
  completed_before: v.optional(Timestamp),
  status: v.optional(
    v.picklist(['completed', 'in_progress', 'other', 'all'], 'must be completed, in_progress, other or all'),
  ),
  type: v.optional(v.picklist(['course', 'path', 'all'], 'must be course, path or all')),
  year: v.optional(v.pipe(v.string(), v.regex(/^\d{4}$/, 'must be a four-digit year'), v.transform(Number))),
  format: v.optional(v.picklist(['json', 'csv'], 'must be json or csv')),
})
