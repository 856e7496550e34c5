/** The tenant's audit log: who did what to settings (never content). */
import { randomUUID } from 'node:crypto'
import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import * as v from 'valibot'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { putItem, queryAll } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { defineEntity, field } from '../core/entity.ts'
import { cond, queryExpression } from '../core/expression.ts'
import { keys } from '../core/keys.ts'

export interface AuditRecord {
  readonly action: string
  readonly actor: string
  readonly details: Record<string, unknown>
  readonly createdAt: string
}

const AuditKey = v.object({ sk: v.string() })

/** Keyed by its time and `id`, which is read back from the key. */
const auditEntity = defineEntity(
  'audit',
  {
    action: field('action', v.string()),
    actor: field('actor', v.string()),
    details: field('details', v.record(v.string(), v.unknown())),
    createdAt: field('created_at', v.string()),
  },
  { key: (at: { tenant: TenantContext; id: string }, r) => keys.auditRecord(at.tenant, r.createdAt, at.id) },
)

/** A record in time order in the tenant partition; `id` keeps records of the same instant apart. */
export function auditPutParams(
  tenant: TenantContext,
  record: AuditRecord,
  id: string = randomUUID(),
): Omit<PutCommandInput, 'TableName'> {
  return {
    Item: auditEntity.item({ tenant, id }, record),
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
    const { sk } = decodeItem('audit record', AuditKey, item)
    return { id: sk.slice(sk.lastIndexOf('#') + 1), ...auditEntity.decode(item) }
  })
}
