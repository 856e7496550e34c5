/**
 * The tenant's audit log as the operator reads it: newest first, optionally one action only.
 * The services whose actions are audited write the records (audit-store.ts, writeAudit).
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { listAudit, type AuditRecord } from '../../store/tenants/audit-store.ts'

export type AuditEntry = AuditRecord & { readonly id: string }

/** @example await auditTrail(tenant, { action: 'webhook.retry' }) // newest first */
export async function auditTrail(
  tenant: TenantContext,
  filter: { readonly action?: string | undefined } = {},
): Promise<AuditEntry[]> {
  const { action } = filter
  return (await listAudit(tenant)).filter((r) => action === undefined || r.action === action).reverse()
}
