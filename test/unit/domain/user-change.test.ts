import { describe, expect, it } from 'vitest'
import { applyUserChanges, userChangeEvents } from '../../../shared/domain/users/user-change.ts'
import {
  takesSeat,
  userCounterDeltas,
  userCounterTotals,
} from '../../../shared/domain/users/user-counters.ts'
import { aUser } from '../../helpers/builders.ts'

const at = '2026-03-01T10:00:00.000Z'
const later = '2026-03-02T10:00:00.000Z'
const user = aUser({ id: 'u1', email: 'ada@example.com', externalId: 'x1', groupIds: ['g1'], createdAt: at })

describe('Function: applyUserChanges', () => {
  it('moves the fields given, keeps the others (an explicit null included) and the update time', () => {
    expect(applyUserChanges(user, { lastName: 'Byron', externalId: null, locale: undefined }, later)).toEqual(
      {
        ...user,
        lastName: 'Byron',
        externalId: null,
        updatedAt: later,
      },
    )
  })
})

describe('Function: userChangeEvents', () => {
  it('says deactivated with the address after the change (an erasure placeholder), reactivated with the one before', () => {
    const erased = { ...user, isActive: false, email: 'erased-u1@erased.invalid' }
    expect(userChangeEvents(user, erased, later).map((e) => [e.event, e.data])).toEqual([
      ['user.deactivated', { userId: 'u1', email: 'erased-u1@erased.invalid' }],
    ])
    expect(userChangeEvents({ ...user, isActive: false }, user, later).map((e) => [e.event, e.data])).toEqual(
      [['user.reactivated', { userId: 'u1', email: 'ada@example.com' }]],
    )
    expect(userChangeEvents(user, { ...user, lastName: 'Byron' }, later)).toEqual([])
  })
})

describe('Functions: user counters', () => {
  it('moves only the counters a change touches', () => {
    expect(userCounterDeltas(user, { ...user, isActive: false })).toEqual({
      users_active: -1,
      active_role_learner: -1,
      active_type_internal: -1,
    })
    expect(userCounterDeltas(user, user)).toEqual({})
  })

  it('sums the contributions of many users', () => {
    expect(userCounterTotals([user, { ...user, role: 'admin', isActive: false }])).toEqual({
      users_total: 2,
      users_active: 1,
      role_learner: 1,
      role_admin: 1,
      type_internal: 2,
      active_role_learner: 1,
      active_role_admin: 0,
      active_type_internal: 1,
    })
  })

  it('takes a seat when a user becomes active, new or reactivated', () => {
    expect(takesSeat(undefined, user)).toBe(true)
    expect(takesSeat({ isActive: false }, user)).toBe(true)
    expect(takesSeat(user, user)).toBe(false)
    expect(takesSeat(undefined, { isActive: false })).toBe(false)
  })
})
