import * as v from 'valibot'
import { text, textRules } from '../text-rules.ts'

/** SCORM, cmi5 and AICC modules exist but are added only in the app, never over the API. */
export const apiModuleTypes = [
  'video',
  'audio',
  'document',
  'iframe',
  'youtube_vimeo',
  'quiz',
  'html',
  'archive',
] as const
export const moduleTypes = [...apiModuleTypes, 'scorm', 'cmi5', 'aicc'] as const
export type ModuleType = (typeof moduleTypes)[number]

export interface Module {
  readonly id: string
  readonly courseId: string
  readonly title: string
  readonly description: string | null
  readonly moduleType: ModuleType
  readonly isRequired: boolean
  readonly orderIndex: number
  readonly createdAt: string
}

export const AddModuleInput = v.object({
  title: text(textRules.moduleTitle, { trimmed: true, required: true }),
  module_type: v.picklist(apiModuleTypes, `must be one of ${apiModuleTypes.join(', ')}`),
  description: v.optional(v.nullable(text(textRules.moduleDescription))),
  is_required: v.optional(v.boolean()),
})
export type AddModuleInput = v.InferOutput<typeof AddModuleInput>

/** The app (the operator CLI stands in for it) also adds the package types. */
export const AppModuleInput = v.object({
  ...AddModuleInput.entries,
  module_type: v.picklist(moduleTypes, `must be one of ${moduleTypes.join(', ')}`),
})
export type AppModuleInput = v.InferOutput<typeof AppModuleInput>
