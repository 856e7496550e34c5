/** The query parameters of the skills routes that the domain does not declare. */
import * as v from 'valibot'
import { skillLocales } from '../../shared/domain/skills/skill.ts'

export const LocaleQuery = v.object({
  locale: v.optional(v.picklist(skillLocales, `must be one of ${skillLocales.join(', ')}`), 'en'),
})
