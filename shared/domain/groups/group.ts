/** Groups: static ones are edited over the API; dynamic ones compute membership from a rule. */
import * as v from 'valibot'
import { text, textRules } from '../text-rules.ts'
import { Uuid } from '../validation.ts'
import { roles, userTypes, type User } from '../users/user.ts'

export const MAX_MEMBER_IDS = 500

export const dynamicRuleAttributes = ['role', 'user_type'] as const

export interface DynamicRule {
  readonly attribute: (typeof dynamicRuleAttributes)[number]
  readonly equals: string
}

export interface Group {
  readonly id: string
  readonly name: string
  readonly description: string | null
  readonly memberCount: number
  readonly kind: 'static' | 'dynamic'
  readonly rule: DynamicRule | null
  readonly createdAt: string
  readonly updatedAt: string
}

/** Dynamic membership: active users whose attribute equals the rule's value. */
export function matchesRule(rule: DynamicRule, user: User): boolean {
  return (
    user.isActive && (rule.attribute === 'role' ? user.role === rule.equals : user.userType === rule.equals)
  )
}

export function isValidRule(rule: DynamicRule): boolean {
  const vocabulary: readonly string[] = rule.attribute === 'role' ? roles : userTypes
  return vocabulary.includes(rule.equals)
}

const Name = text(textRules.groupName, { trimmed: true, required: true })
const Description = v.nullable(text(textRules.groupDescription))

export const CreateGroupInput = v.object({ name: Name, description: v.optional(Description) })
export type CreateGroupInput = v.InferOutput<typeof CreateGroupInput>

export const UpdateGroupInput = v.object({ name: v.optional(Name), description: v.optional(Description) })
export type UpdateGroupInput = v.InferOutput<typeof UpdateGroupInput>

/** The search of the group and member lists. */
export const GroupSearchQuery = v.object({ search: v.optional(text(textRules.searchQuery)) })

export const AddMembersInput = v.object({
  user_ids: v.pipe(
    v.array(Uuid),
    v.minLength(1, 'must hold at least one id'),
    v.maxLength(MAX_MEMBER_IDS, `must hold at most ${MAX_MEMBER_IDS} ids`),
  ),
})

export const RemoveMembersInput = v.object({
  user_ids: v.pipe(v.array(Uuid), v.maxLength(MAX_MEMBER_IDS, `must hold at most ${MAX_MEMBER_IDS} ids`)),
})
