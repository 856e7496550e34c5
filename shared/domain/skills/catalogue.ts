/**
 * The skills catalogue as the API takes it (api-additions section 4): domains, skills and a
 * person's held level. Unknown fields are refused (strict objects), as every new route does.
 */
import * as v from 'valibot'
import { text, textRules } from '../text-rules.ts'
import { Timestamp, Uuid } from '../validation.ts'
import { SkillLevelSchema, skillSources } from './skill.ts'

const Name = text(textRules.skillName, { trimmed: true, required: true })
const Description = v.nullable(text(textRules.skillDescription))
/** The names in other locales: French (Canada) is the one the product shows (skill.ts, skillLocales). */
const Names = v.strictObject({ 'fr-CA': v.optional(v.nullable(Name)) })

export const CreateSkillDomainInput = v.strictObject({ name: Name, names: v.optional(Names) })
export type CreateSkillDomainInput = v.InferOutput<typeof CreateSkillDomainInput>

export const CreateSkillInput = v.strictObject({
  name: Name,
  domain_id: Uuid,
  description: v.optional(Description),
  names: v.optional(Names),
  is_critical: v.optional(v.boolean('must be a boolean')),
})
export type CreateSkillInput = v.InferOutput<typeof CreateSkillInput>

export const UpdateSkillInput = v.strictObject({
  name: v.optional(Name),
  description: v.optional(Description),
  names: v.optional(Names),
  is_active: v.optional(v.boolean('must be a boolean')),
  is_critical: v.optional(v.boolean('must be a boolean')),
})
export type UpdateSkillInput = v.InferOutput<typeof UpdateSkillInput>

export const SetHeldSkillInput = v.strictObject({
  level: SkillLevelSchema,
  source: v.picklist(skillSources, `must be one of ${skillSources.join(', ')}`),
  valid_until: v.optional(v.nullable(Timestamp)),
})
export type SetHeldSkillInput = v.InferOutput<typeof SetHeldSkillInput>

/** The French name a request sets: absent leaves it, null clears it. */
export const frenchName = (names: { 'fr-CA'?: string | null } | undefined): string | null | undefined =>
  names?.['fr-CA']
