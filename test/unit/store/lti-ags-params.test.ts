import { describe, expect, it } from 'vitest'
import type { TenantContext } from '../../../shared/domain/tenants/tenant.ts'
import { agsParams } from '../../../shared/store/lti/lti-ags-store.ts'

const tenant: TenantContext = { id: 't-1', plan: 'growth' }

describe('AGS link params', () => {
  it('keeps the link with an update that leaves the score mark alone', () => {
    // Act
    const p = agsParams.keep(tenant, {
      enrollmentId: 'e-1',
      registrationId: 'r-1',
      sub: 's-1',
      lineItem: 'https://lms.example.com/li/1',
      linkedAt: '2026-11-27T10:00:00.000Z',
    })

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t-1', sk: 'LTIAGS#e-1' })
    expect(p.UpdateExpression).toMatch(/^SET /)
    expect(Object.values(p.ExpressionAttributeNames ?? {})).not.toContain('scored_mark')
  })

  it("marks the enrollment as linked, only while it exists (the launch's same transaction)", () => {
    // Act
    const p = agsParams.markEnrollment(tenant, 'e-1')

    // Assess
    expect(p.Key).toEqual({ pk: 'T#t-1', sk: 'ENROLL#e-1' })
    expect(p.UpdateExpression).toBe('SET #n0 = :v0')
    expect(p.ExpressionAttributeNames).toMatchObject({ '#n0': 'scores_linked' })
    expect(p.ExpressionAttributeValues).toMatchObject({ ':v0': true })
    expect(p.ConditionExpression).toMatch(/attribute_exists/)
  })

  it('claims a score only over a lower mark of the same line item, on a link that still names it', () => {
    // Act
    const p = agsParams.claimScore(
      tenant,
      'e-1',
      'https://lms.example.com/li/1',
      '2026-11-27T10:00:00.000Z#0',
    )

    // Assess
    const names = p.ExpressionAttributeNames ?? {}
    const values = p.ExpressionAttributeValues ?? {}
    const readable = (p.ConditionExpression ?? '')
      .replace(/#\w+/g, (n) => String(names[n]))
      .replace(/:\w+/g, (v) => JSON.stringify(values[v]))
    expect(readable).toBe(
      '(attribute_exists(pk)) AND (lineitem = "https://lms.example.com/li/1") AND ' +
        '((attribute_not_exists(scored_mark)) OR (scored_lineitem <> "https://lms.example.com/li/1") OR ' +
        '(scored_mark <= "2026-11-27T10:00:00.000Z#0"))',
    )
  })
})
