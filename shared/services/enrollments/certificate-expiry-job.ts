/**
 * The certificate-expiry job (daily; docs/decisions/0047): for each registered tenant, one rpt1
 * key range holds every certificate that may owe a notice at `at` (expiring within 30 days, or
 * expired within the lookback). Each gets the most urgent notice due and not sent yet: its
 * `certificate.expiring` or `certificate.expired` event and the learner's e-mail, written with the
 * certificate's marker, whose condition makes a second run (or a concurrent one) send nothing.
 */
import { mapLimit } from '../../concurrency.ts'
import { noticeDue, type DueNotice } from '../../domain/enrollments/certificate-expiry.ts'
import { newEvent, newNotification, type Effects } from '../../domain/events.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { errorFields, log } from '../../log.ts'
import {
  noticeCandidates,
  noticeStagesSent,
  recordCertificateNotice,
  type NoticeCandidate,
} from '../../store/enrollments/certificate-notices.ts'
import { courseTitles } from '../../store/reports/course-titles.ts'
import { registeredTenants } from '../../store/tenants/tenant-registry.ts'
import { getTenantsBySlugs } from '../../store/tenants/tenants-store.ts'

const TENANTS_IN_PARALLEL = 8

// A type, not an interface: the job registry takes a Record<string, number>.
type Counts = {
  expiring: number
  expired: number
}

export async function runCertificateExpiry(at: string): Promise<Counts> {
  const counts: Counts = { expiring: 0, expired: 0 }
  for await (const page of registeredTenants()) {
    const tenants = await getTenantsBySlugs(page.map((t) => t.slug))
    await mapLimit(tenants, TENANTS_IN_PARALLEL, (tenant) => noticesOfTenant(tenant, at, counts))
  }
  return counts
}

async function noticesOfTenant(tenant: TenantContext, at: string, counts: Counts): Promise<void> {
  const due = (await noticeCandidates(tenant, at)).flatMap((c) => {
    const notice = noticeDue(c.expiresAt, at)
    return notice ? [{ ...c, notice }] : []
  })
  if (due.length === 0) return
  const sent = await noticeStagesSent(
    tenant,
    due.map((d) => d.certificateId),
  )
  const owed = due.filter((d) => (sent.get(d.certificateId) ?? Infinity) > d.notice.stage)
  const titles = await courseTitles(
    tenant,
    owed.map((d) => d.courseId),
  )
  for (const d of owed) {
    const title = titles.get(d.courseId) ?? d.courseId
    try {
      const recorded = await recordCertificateNotice(
        tenant,
        { ...d, stage: d.notice.stage },
        noticeEffects(d, d.notice, title, at),
      )
      if (recorded) counts[d.notice.stage === 0 ? 'expired' : 'expiring'] += 1
    } catch (err) {
      // One notice that cannot be written now must not hold up the others; its marker is
      // unchanged, so the next run owes it again.
      log('error', 'certificate notice failed', {
        tenantId: tenant.id,
        certificateId: d.certificateId,
        ...errorFields(err),
      })
    }
  }
}

function noticeEffects(c: NoticeCandidate, notice: DueNotice, courseTitle: string, at: string): Effects {
  const ids = { certificateId: c.certificateId, userId: c.userId, courseId: c.courseId }
  const mail = { enrollmentId: c.enrollmentId, courseId: c.courseId, courseTitle, expiresAt: c.expiresAt }
  if (notice.stage === 0) {
    return {
      events: [newEvent('certificate.expired', { ...ids, expiredAt: c.expiresAt }, at)],
      notifications: [newNotification('certificate_expired', c.userId, mail, at)],
    }
  }
  const { daysLeft } = notice
  return {
    events: [newEvent('certificate.expiring', { ...ids, expiresAt: c.expiresAt, daysLeft }, at)],
    notifications: [newNotification('certificate_expiring', c.userId, { ...mail, daysLeft }, at)],
  }
}
