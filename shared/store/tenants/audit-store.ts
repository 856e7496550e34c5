/** The tenant's audit log: who did what to settings (never content). */
import { randomUUID } from 'node:crypto'
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { putItem, queryAll } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'

export interface AuditRecord {
  readonly action: string
  readonly actor: string
  readonly details: Record<string, unknown>
  readonly createdAt: string
}

const AuditItem = v.object({
  sk: v.string(),
  action: v.string(),
  actor: v.string(),
  details: v.record(v.string(), v.unknown()),
  created_at: v.string(),
})

/** A record in time order in the tenant partition; `id` keeps records of the same instant apart. */
export function auditPutParams(
  tenant: TenantContext,
  record: AuditRecord,
  id: string = randomUUID(),
): Omit<PutCommandInput, 'TableName'> {
  return {
    Item: {
      ...keys.auditRecord(tenant, record.createdAt, id),
      type: 'audit',
      action: record.action,
      actor: record.actor,
      details: record.details,
      created_at: record.createdAt,
    },
  }
}

export async function writeAudit(tenant: TenantContext, record: AuditRecord): Promise<void> {
  await putItem(auditPutParams(tenant, record))
}

export function auditQueryParams(tenant: TenantContext): Omit<QueryCommandInput, 'TableName'> {
  return queryExpression({
    key: cond.and(cond.eq('pk', keys.tenantPartition(tenant)), cond.beginsWith('sk', keys.auditPrefix)),
  })
}

/** Oldest first; `id` is the record's own (the last part of its key). */
export async function listAudit(tenant: TenantContext): Promise<(AuditRecord & { readonly id: string })[]> {
  return (await queryAll(auditQueryParams(tenant))).map((item) => {
    const a = decodeItem('audit record', AuditItem, item)
    const id = a.sk.slice(a.sk.lastIndexOf('#') + 1)
    return { id, action: a.action, actor: a.actor, details: a.details, createdAt: a.created_at }
  })
}
