import { describe, expect, it } from 'vitest'
import { newEvent, newNotification } from '../../../shared/domain/events.ts'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { noticeCandidatesParams, noticeSteps } from '../../../shared/store/enrollments/certificate-notices.ts'
import { readable } from '../../helpers/readable-expression.ts'

const tenant: TenantContext = { id: 't1', plan: 'growth' }
const at = '2026-03-01T10:00:00.000Z'

describe('Function: noticeCandidatesParams', () => {
  it('reads rpt1 from 30 days before `at` to the end of the expiring window, completed by `at`', () => {
    const params = noticeCandidatesParams(tenant, at)
    expect(params.IndexName).toBe('rpt1')
    expect(readable('KeyConditionExpression', params)).toBe(
      '(rpt1pk = "T#t1#ASSIGN") AND (rpt1sk BETWEEN "2026-01-30T10:00:00.000Z#~" AND "2026-03-31T10:00:00.000Z#~")',
    )
    expect(readable('FilterExpression', params)).toBe(
      `(completed_at <= "${at}") AND (attribute_exists(certificate_id))`,
    )
  })
})

describe('Function: noticeSteps', () => {
  it('writes the certificate’s marker unless it holds this stage or a more urgent one, with the event and e-mail', () => {
    // Prepare
    const data = { certificateId: 'cert-1', userId: 'u1', courseId: 'c1', expiresAt: at, daysLeft: 7 }
    const event = newEvent('certificate.expiring', data, at)
    const mail = newNotification('certificate_expiring', 'u1', { courseTitle: 'Safety' }, at)

    // Act
    const steps = noticeSteps(
      tenant,
      { certificateId: 'cert-1', expiresAt: at, stage: 7 },
      { events: [event], notifications: [mail] },
    )

    // Assess
    expect(steps.map((s) => s.refusal)).toEqual(['already_noticed', undefined, undefined])
    const put = steps[0]?.item.Put
    expect(put?.Item).toEqual({
      pk: 'T#t1',
      sk: 'CERTNOTICE#cert-1',
      type: 'certificate_notice',
      stage: 7,
      ttl: Date.parse(at) / 1000 + 60 * 86_400,
    })
    expect(readable('ConditionExpression', put ?? {})).toBe('(attribute_not_exists(pk)) OR (stage > 7)')
  })
})
