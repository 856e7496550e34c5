/**
 * What users add to the tenant's counters: the users list reads its filtered totals (none, one of
 * role / is_active / user_type, or is_active with role or user_type) from these instead of counting,
 * and the seat cap is a condition on `users_active`.
 */
import { periodLoginCounter } from '../billing/billing-period.ts'
import type { User } from './user.ts'

type CounterValues = Readonly<Record<string, number>>
type Counted = Pick<User, 'role' | 'userType' | 'isActive' | 'loginPeriod'>

/**
 * The counters one user contributes to. An active person who signed in during a billing period
 * counts in that period's sign-ins (billing metrics); deactivating them takes them out again.
 */
export function userCounterContributions(u: Counted): CounterValues {
  const active = u.isActive ? 1 : 0
  return {
    users_total: 1,
    users_active: active,
    [`role_${u.role}`]: 1,
    [`type_${u.userType}`]: 1,
    [`active_role_${u.role}`]: active,
    [`active_type_${u.userType}`]: active,
    ...(u.loginPeriod !== undefined ? { [periodLoginCounter(u.loginPeriod)]: active } : {}),
  }
}

/** The sum of many users' contributions (a bulk load, a new tenant's owner). */
export function userCounterTotals(users: readonly Counted[]): CounterValues {
  const totals: Record<string, number> = {}
  for (const user of users) {
    for (const [name, n] of Object.entries(userCounterContributions(user)))
      totals[name] = (totals[name] ?? 0) + n
  }
  return totals
}

/** How the counters move when a user changes from `before` to `after`; unmoved counters are left out. */
export function userCounterDeltas(before: Counted, after: Counted): CounterValues {
  const from = userCounterContributions(before)
  const to = userCounterContributions(after)
  const out: Record<string, number> = {}
  for (const name of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const d = (to[name] ?? 0) - (from[name] ?? 0)
    if (d !== 0) out[name] = d
  }
  return out
}

/** A change that turns a user active takes a seat, so the seat cap must hold for it. */
export function takesSeat(
  before: Pick<User, 'isActive'> | undefined,
  after: Pick<User, 'isActive'>,
): boolean {
  return after.isActive && !(before?.isActive ?? false)
}
