/**
 * Certificate expiry notices (docs/decisions/0047): the certificates a run at `at` may owe a notice,
 * read from rpt1 (assignments by certificate expiry) as one key range, and the marker per
 * certificate that records the most urgent notice sent. The marker's condition, in the notice's own
 * transaction, is what makes a notice go once: reading the markers first only spares the writes
 * that would be refused.
 */
import * as v from 'valibot'
import { expiredLookbackStart, type NoticeStage } from '../../domain/enrollments/certificate-expiry.ts'
import type { Effects } from '../../domain/events.ts'
import { expiringWindowEnd } from '../../domain/reports/compliance.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchGet, queryAll } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, conditionExpression, projectionExpression, queryExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { isRefused } from '../core/store-errors.ts'
import { commit, type Step } from '../core/transaction.ts'
import { effectSteps } from '../outbox/outbox-items.ts'
import { reportIndexes } from '../reports/report-indexes.ts'

const DAY_S = 86_400
/** A marker outlives the lookback, after which no run reads its certificate again. */
const MARKER_KEPT_AFTER_EXPIRY_DAYS = 60

/** A completed assignment whose certificate expires in the window of a run. */
export interface NoticeCandidate {
  readonly enrollmentId: string
  readonly userId: string
  readonly courseId: string
  readonly certificateId: string
  readonly expiresAt: string
}

const Candidate = v.object({
  id: v.string(),
  user_id: v.string(),
  course_id: v.string(),
  certificate_id: v.string(),
  certificate_expires_at: v.string(),
})

/**
 * rpt1 between the lookback's start and the end of the expiring window at `at` (exclusive and
 * inclusive, as the compliance report's ranges), completed by `at`: the report's expiring_soon
 * assignments at `at` and those expired within the lookback.
 */
export function noticeCandidatesParams(tenant: TenantContext, at: string) {
  const index = reportIndexes.assignments
  const after = (iso: string) => keys.sortKey(iso, keys.missingDate)
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.and(
        cond.eq(index.pk, keys.assignmentsIndexPk(tenant)),
        cond.between(index.sk, after(expiredLookbackStart(at)), after(expiringWindowEnd(at))),
      ),
      filter: cond.and(cond.le('completed_at', at), cond.exists('certificate_id')),
      project: Object.keys(Candidate.entries),
    }),
  }
}

export async function noticeCandidates(tenant: TenantContext, at: string): Promise<NoticeCandidate[]> {
  return (await queryAll(noticeCandidatesParams(tenant, at))).map((item) => {
    const c = decodeItem('enrollment', Candidate, item)
    return {
      enrollmentId: c.id,
      userId: c.user_id,
      courseId: c.course_id,
      certificateId: c.certificate_id,
      expiresAt: c.certificate_expires_at,
    }
  })
}

const Marker = v.object({ sk: v.string(), stage: v.number() })

/** The stage each certificate's marker holds (certificates without one are absent). */
export async function noticeStagesSent(
  tenant: TenantContext,
  certificateIds: readonly string[],
): Promise<Map<string, number>> {
  const projection = projectionExpression(['sk', 'stage'])
  const markers = await batchGet(
    certificateIds.map((id) => keys.certificateNotice(tenant, id)),
    projection.ProjectionExpression,
    projection.ExpressionAttributeNames,
  )
  const prefix = keys.certificateNotice(tenant, '').sk
  return new Map(
    markers.map((item) => {
      const m = decodeItem('certificate_notice', Marker, item)
      return [m.sk.slice(prefix.length), m.stage]
    }),
  )
}

type NoticeRefusal = 'already_noticed'

export function noticeSteps(
  tenant: TenantContext,
  notice: { readonly certificateId: string; readonly expiresAt: string; readonly stage: NoticeStage },
  effects: Effects,
): Step<NoticeRefusal>[] {
  const marker = {
    ...keys.certificateNotice(tenant, notice.certificateId),
    type: 'certificate_notice',
    stage: notice.stage,
    [TTL_ATTRIBUTE]: Math.floor(Date.parse(notice.expiresAt) / 1000) + MARKER_KEPT_AFTER_EXPIRY_DAYS * DAY_S,
  }
  // Written when none is, or when the one there is an earlier (larger) stage: each stage once, and
  // never one after a more urgent one.
  const notSentYet = cond.or(cond.notExists(), cond.gt('stage', notice.stage))
  return [
    { item: { Put: { Item: marker, ...conditionExpression(notSentYet) } }, refusal: 'already_noticed' },
    ...effectSteps(tenant, effects),
  ]
}

/**
 * Records a certificate's notice with its event and e-mail, unless that notice or a more urgent
 * one was recorded already (by an earlier run or a concurrent one).
 * @returns whether this call recorded it
 */
export async function recordCertificateNotice(
  tenant: TenantContext,
  notice: { readonly certificateId: string; readonly expiresAt: string; readonly stage: NoticeStage },
  effects: Effects,
): Promise<boolean> {
  try {
    await commit(noticeSteps(tenant, notice, effects))
    return true
  } catch (err) {
    if (!isRefused<NoticeRefusal>(err, 'already_noticed')) throw err
    return false
  }
}
