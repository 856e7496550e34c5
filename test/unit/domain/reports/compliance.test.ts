import { describe, expect, it } from 'vitest'
import {
  complianceRow,
  complianceStatus,
  daysUntilExpiry,
  isAssignment,
} from '../../../../shared/domain/reports/compliance.ts'
import { enrollment } from './fixtures.ts'

const asOf = '2026-06-01T00:00:00.000Z'
const done = (completedAt: string | null, certificateExpiresAt: string | null) => ({
  completedAt,
  certificateExpiresAt,
})

describe('compliance status at as_of', () => {
  it('is compliant with a current completion whose certificate never expires or expires after 30 days', () => {
    expect(complianceStatus(done('2026-05-01T00:00:00.000Z', null), asOf)).toBe('compliant')
    expect(complianceStatus(done('2026-05-01T00:00:00.000Z', '2026-07-01T00:00:00.001Z'), asOf)).toBe(
      'compliant',
    )
  })

  it('is expiring_soon when the current completion expires within 30 days (30 days exactly included)', () => {
    expect(complianceStatus(done('2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.001Z'), asOf)).toBe(
      'expiring_soon',
    )
    expect(complianceStatus(done('2026-05-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'), asOf)).toBe(
      'expiring_soon',
    )
  })

  it('is non_compliant without a completion, after expiry (expiry at as_of included), or completed after as_of', () => {
    expect(complianceStatus(done(null, null), asOf)).toBe('non_compliant')
    expect(complianceStatus(done('2025-01-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'), asOf)).toBe(
      'non_compliant',
    )
    expect(complianceStatus(done('2026-06-02T00:00:00.000Z', null), asOf)).toBe('non_compliant')
  })

  it('counts whole days until expiry, rounded down, negative once expired, null without expiry', () => {
    expect(daysUntilExpiry(done('2026-05-01T00:00:00.000Z', '2026-06-11T12:00:00.000Z'), asOf)).toBe(10)
    expect(daysUntilExpiry(done('2026-05-01T00:00:00.000Z', '2026-05-31T12:00:00.000Z'), asOf)).toBe(-1)
    expect(daysUntilExpiry(done('2026-05-01T00:00:00.000Z', null), asOf)).toBeNull()
  })

  it('counts active, completed and expired enrollments as assignments, not dropped, waitlisted or pending', () => {
    expect(['active', 'completed', 'expired'].every((s) => isAssignment(s as never))).toBe(true)
    expect(['dropped', 'waitlisted', 'pending_approval'].some((s) => isAssignment(s as never))).toBe(false)
  })

  it('shows a completion made after as_of as no completion at all', () => {
    const e = enrollment({
      status: 'completed',
      completedAt: '2026-06-15T00:00:00.000Z',
      certificateExpiresAt: '2027-06-15T00:00:00.000Z',
    })
    expect(complianceRow(e, 'Fire safety', asOf)).toEqual({
      user_id: 'u1',
      course_id: 'c1',
      course_title: 'Fire safety',
      compliance_status: 'non_compliant',
      last_completion_date: null,
      certificate_expires_at: null,
      days_until_expiry: null,
    })
    expect(complianceRow(e, 'Fire safety', '2026-07-01T00:00:00.000Z')).toMatchObject({
      compliance_status: 'compliant',
      last_completion_date: '2026-06-15T00:00:00.000Z',
      certificate_expires_at: '2027-06-15T00:00:00.000Z',
      days_until_expiry: 349,
    })
  })
})
