/**
 * The tenant's custom field definitions (configured by the operator; user writes check their
 * values against them in users-service.ts). Defining a key again replaces its definition.
 */
import { ValidationError } from '../../domain/errors.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { CustomFieldDefInput, type CustomFieldDef } from '../../domain/users/custom-fields.ts'
import { parseOrThrow } from '../../domain/validation.ts'
import { listCustomFieldDefs, putCustomFieldDef } from '../../store/users/users-store.ts'

/**
 * @example await defineCustomField(tenant, { key: 'dept', label: 'Department', type: 'string', required: false, options: [] })
 * @throws ValidationError naming the first field that does not fit, or `options` for a select without any
 */
export async function defineCustomField(tenant: TenantContext, input: unknown): Promise<CustomFieldDef> {
  const def = parseOrThrow(CustomFieldDefInput, input)
  // A select field with no options would refuse every value, a required one every user.
  if (def.type === 'select' && def.options.length === 0)
    throw new ValidationError('options', 'options is required for a select field')
  await putCustomFieldDef(tenant, def)
  return def
}

export function listCustomFields(tenant: TenantContext): Promise<CustomFieldDef[]> {
  return listCustomFieldDefs(tenant)
}
