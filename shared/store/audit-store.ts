/** The tenant's audit log: who did what to settings (never content). */
import { randomUUID } from 'node:crypto'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { putItem, queryAll } from './db.ts'
import { keys } from './keys.ts'

export interface AuditRecord {
  readonly action: string
  readonly actor: string
  readonly details: Record<string, unknown>
  readonly createdAt: string
}

export async function writeAudit(tenant: TenantContext, record: AuditRecord): Promise<void> {
  await putItem({
    Item: {
      ...keys.auditRecord(tenant, record.createdAt, randomUUID()),
      type: 'audit',
      action: record.action,
      actor: record.actor,
      details: record.details,
      created_at: record.createdAt,
    },
  })
}

export async function listAudit(tenant: TenantContext): Promise<AuditRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenant), ':sk': keys.auditPrefix },
  })
  return items.map((i) => ({
    action: i.action as string,
    actor: i.actor as string,
    details: i.details as Record<string, unknown>,
    createdAt: i.created_at as string,
  }))
}
