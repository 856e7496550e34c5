/**
 * Erasing a learner (operator CLI): the account's identifying data is replaced, the seat is freed,
 * the record-store delivery log of that learner is deleted (document 001 keeps those rows only
 * until the learner is erased), and no statement is exported for them again. Their e-mail in stored
 * events is replaced by the erased placeholder (the events API, decision 0044). Their enrollments'
 * LTI score links go, with the platform user id they keep: no score is posted for them again
 * (decision 0050).
 */
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { writeAudit } from '../../store/tenants/audit-store.ts'
import { deleteStatementsOf } from '../../store/deliveries/xapi-store.ts'
import { unlinkScoresOf } from '../lti/lti-ags-service.ts'
import { redactEventsOf } from '../outbox/events-service.ts'
import { releaseRolesOfErased } from '../skills/job-roles-service.ts'
import { eraseUserIdentity } from './users-service.ts'

export interface Erasure {
  readonly userId: string
  readonly erasedAt: string
  readonly statementsDeleted: number
}

/** Idempotent: erasing again deletes any log row written meanwhile and keeps the first date. */
export async function eraseLearner(
  tenant: TenantContext,
  userId: string,
  actor: string,
  at = new Date().toISOString(),
): Promise<Erasure> {
  const user = await eraseUserIdentity(tenant, userId, at)
  const statementsDeleted = await deleteStatementsOf(tenant, userId)
  await redactEventsOf(tenant, userId)
  await releaseRolesOfErased(tenant, userId)
  await unlinkScoresOf(tenant, userId)
  await writeAudit(tenant, {
    action: 'user.erased',
    actor,
    details: { userId, statementsDeleted },
    createdAt: at,
  })
  return { userId, erasedAt: user.erasedAt ?? at, statementsDeleted }
}
