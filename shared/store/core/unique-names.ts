/**
 * Names unique within a tenant ignoring case (groups, job roles): a guard item keyed by the
 * lower-cased name, put on the condition that none is there, in the same transaction as the
 * write that takes the name. A rename takes the new guard and frees the old one; a change of case
 * keeps the guard it has.
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { cond, conditionExpression } from './expression.ts'
import type { Key } from './keys.ts'
import type { Step } from './transaction.ts'

export interface UniqueNames {
  claim(tenant: TenantContext, name: string, ownerId: string): Step<'name_taken'>
  free(tenant: TenantContext, name: string): Step<never>
  /** No step when the name is unchanged but for case. */
  rename(tenant: TenantContext, before: string, after: string, ownerId: string): Step<'name_taken'>[]
}

/** `guardType` and `ownerAttribute` say what the guard item is and whose name it holds. */
export function uniqueNames(
  guardKey: (tenant: TenantContext, nameLower: string) => Key,
  guardType: string,
  ownerAttribute: string,
): UniqueNames {
  const claim = (tenant: TenantContext, name: string, ownerId: string): Step<'name_taken'> => ({
    item: {
      Put: {
        Item: { ...guardKey(tenant, name.toLowerCase()), type: guardType, [ownerAttribute]: ownerId },
        ...conditionExpression(cond.notExists()),
      },
    },
    refusal: 'name_taken',
  })
  const free = (tenant: TenantContext, name: string): Step<never> => ({
    item: { Delete: { Key: guardKey(tenant, name.toLowerCase()) } },
  })
  return {
    claim,
    free,
    rename: (tenant, before, after, ownerId) =>
      before.toLowerCase() === after.toLowerCase()
        ? []
        : [claim(tenant, after, ownerId), free(tenant, before)],
  }
}
