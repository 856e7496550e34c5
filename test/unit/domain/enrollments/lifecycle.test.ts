import { describe, expect, it } from 'vitest'
import { defaultSettings } from '../../../../shared/domain/courses/course.ts'
import type { Enrollment } from '../../../../shared/domain/enrollments/enrollment.ts'
import {
  accessEnded,
  accessExpiry,
  activated,
  assertPendingApproval,
} from '../../../../shared/domain/enrollments/lifecycle.ts'
import { ConflictError } from '../../../../shared/domain/errors.ts'

const at = '2026-03-01T10:00:00.000Z'
const e = { id: 'e-1', status: 'pending_approval', enrolledAt: '2026-01-01T00:00:00.000Z' } as Enrollment

describe('Function: accessExpiry', () => {
  it('counts whole days from the start of access, and has no end without access days', () => {
    expect(accessExpiry(at, 30)).toBe('2026-03-31T10:00:00.000Z')
    expect(accessExpiry(at, null)).toBeNull()
  })
})

describe('Function: activated', () => {
  it('starts access now: enrolled_at, a seat where seats are limited, and its end', () => {
    expect(activated(e, { ...defaultSettings, seatLimit: 5, accessDays: 10 }, at)).toMatchObject({
      status: 'active',
      enrolledAt: at,
      updatedAt: at,
      holdsSeat: true,
      accessExpiresAt: '2026-03-11T10:00:00.000Z',
    })
    expect(activated(e, defaultSettings, at)).toMatchObject({ holdsSeat: false, accessExpiresAt: null })
  })
})

describe('Function: accessEnded', () => {
  it('holds for an active enrollment at or after its end only', () => {
    const active = { ...e, status: 'active', accessExpiresAt: at } as Enrollment
    expect(accessEnded(active, at)).toBe(true)
    expect(accessEnded(active, '2026-03-01T09:59:59.999Z')).toBe(false)
    expect(accessEnded({ ...active, status: 'completed' }, at)).toBe(false)
    expect(accessEnded({ ...active, accessExpiresAt: null }, at)).toBe(false)
  })
})

describe('Function: assertPendingApproval', () => {
  it('refuses anything but pending approval as a conflict (409), naming the status', () => {
    expect(() => assertPendingApproval(e, 'approved')).not.toThrow()
    expect(() => assertPendingApproval({ ...e, status: 'waitlisted' }, 'denied')).toThrow(
      /pending approval can be denied; this one is waitlisted/,
    )
    expect(() => assertPendingApproval({ ...e, status: 'active' }, 'approved')).toThrow(ConflictError)
  })
})
