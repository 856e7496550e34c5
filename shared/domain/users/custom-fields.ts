/** Custom field definitions (configured per tenant with the CLI) and the check of user values. */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'
import { text, textProblem, textRules } from '../text-rules.ts'
import { isCalendarDate, isStorableNumber } from '../validation.ts'

export const customFieldTypes = ['string', 'number', 'boolean', 'date', 'select'] as const
export type CustomFieldType = (typeof customFieldTypes)[number]

export interface CustomFieldDef {
  readonly key: string
  readonly label: string
  readonly type: CustomFieldType
  readonly required: boolean
  readonly options: readonly string[]
}

export const CUSTOM_FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/
export const MAX_CUSTOM_FIELD_OPTIONS = 100

/** A definition as the operator CLI takes it. */
export const CustomFieldDefInput = v.object({
  key: v.pipe(v.string(), v.regex(CUSTOM_FIELD_KEY, 'must be lowercase letters, digits and underscores')),
  label: text(textRules.customFieldLabel, { trimmed: true, required: true }),
  type: v.picklist(customFieldTypes, `must be one of ${customFieldTypes.join(', ')}`),
  required: v.boolean(),
  options: v.pipe(
    v.array(text(textRules.customFieldOption, { trimmed: true, required: true })),
    v.maxLength(MAX_CUSTOM_FIELD_OPTIONS, `must hold at most ${MAX_CUSTOM_FIELD_OPTIONS} options`),
  ),
})

function checkValue(def: CustomFieldDef, value: unknown): string | undefined {
  switch (def.type) {
    case 'string':
      return typeof value === 'string'
        ? textProblem(textRules.customFieldValue, value)
        : `must be a string of at most ${textRules.customFieldValue.maxChars} characters`
    case 'number':
      return typeof value === 'number' && isStorableNumber(value)
        ? undefined
        : `must be a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, zero or of magnitude at least 1e-130`
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false'
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? undefined : 'must be a date (YYYY-MM-DD)'
    case 'select':
      return typeof value === 'string' && def.options.includes(value)
        ? undefined
        : `must be one of ${def.options.join(', ')}`
  }
}

/**
 * Every key must be defined for the tenant, every value must fit its type, and required fields
 * must be present. A null value is the same as leaving the field out.
 */
export function validateCustomFields(
  defs: readonly CustomFieldDef[],
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const byKey = new Map(defs.map((d) => [d.key, d]))
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) {
    const def = byKey.get(key)
    const field = `custom_fields.${key}`
    if (!def) throw new ValidationError(field, `${field} is not a custom field of this tenant`)
    if (value === null) continue
    const problem = checkValue(def, value)
    if (problem) throw new ValidationError(field, `${field} ${problem}`)
    out[key] = value
  }
  for (const def of defs) {
    if (def.required && out[def.key] === undefined) {
      throw new ValidationError(`custom_fields.${def.key}`, `custom_fields.${def.key} is required`)
    }
  }
  return out
}
