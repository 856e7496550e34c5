/**
 * Just-in-time accounts of LTI launches (spec 001, decision 0020). The platform user (issuer, sub)
 * is linked to one tenant user: a linked user is found again whatever its e-mail claim says later;
 * else an active user with the claimed e-mail is reused (never an owner or admin: see 0020), an
 * inactive one is AccountInactive; else a user is created through the users service (seat cap,
 * `user.created`, counters), with its role from the LTI roles once and never again.
 */
import { operator } from '../../domain/actor.ts'
import { ConflictError, EntitlementError } from '../../domain/errors.ts'
import {
  emailClaim,
  LaunchRefused,
  namesFromClaims,
  roleFromLtiRoles,
  syntheticEmail,
  takeoverProtectedRoles,
  CLAIM,
} from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { CreateUserInput } from '../../domain/users/user-schemas.ts'
import { parseOrThrow } from '../../domain/validation.ts'
import { linkedUserId, linkIdentity, userIdByEmail } from '../../store/lti/lti-store.ts'
import { getUser } from '../../store/users/users-store.ts'
import { createUser } from '../users/users-service.ts'

/** Why no account was given, as a roster sync reports it (0052); a launch shows only `code`. */
export type AccountRefusal =
  'account_protected' | 'account_inactive' | 'seat_cap_reached' | 'account_unsettled'

export class AccountRefused extends LaunchRefused {
  constructor(
    code: LaunchRefused['code'],
    reason: string,
    readonly why: AccountRefusal,
  ) {
    super(code, reason)
    this.name = 'AccountRefused'
  }
}

/** A user a launch may sign in as, or the code that refuses it. */
function usable(user: User, via: 'link' | 'email'): User {
  if (via === 'email' && takeoverProtectedRoles.has(user.role))
    throw new AccountRefused(
      'SamlInvalidAssertion',
      'e-mail claim names an owner or admin',
      'account_protected',
    )
  if (!user.isActive || user.erasedAt !== undefined)
    throw new AccountRefused('AccountInactive', 'user inactive', 'account_inactive')
  return user
}

async function byEmail(tenant: TenantContext, email: string): Promise<User | undefined> {
  const id = await userIdByEmail(tenant, email)
  return id ? getUser(tenant, id, { consistent: true }) : undefined
}

/** @throws AccountRefused (a LaunchRefused: AccountInactive, SamlInvalidAssertion) */
export async function accountFor(
  tenant: TenantContext,
  issuer: string,
  claims: Readonly<Record<string, unknown>>,
  at = new Date().toISOString(),
): Promise<User> {
  return (await settleAccount(tenant, issuer, claims, at)).user
}

/**
 * The account of a platform user and whether this call created it (a roster sync counts those).
 * @throws AccountRefused
 */
export async function settleAccount(
  tenant: TenantContext,
  issuer: string,
  claims: Readonly<Record<string, unknown>>,
  at = new Date().toISOString(),
): Promise<{ readonly user: User; readonly created: boolean }> {
  const sub = String(claims.sub)
  const linkedId = await linkedUserId(tenant, issuer, sub)
  const linked = linkedId ? await getUser(tenant, linkedId, { consistent: true }) : undefined
  if (linked) return { user: usable(linked, 'link'), created: false }

  const email = emailClaim(claims) ?? syntheticEmail(issuer, sub)
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await byEmail(tenant, email)
    if (existing) {
      const user = usable(existing, 'email')
      return { user: (await linkOrWinner(tenant, issuer, sub, user, at)) ?? user, created: false }
    }
    const names = namesFromClaims(claims)
    try {
      const created = await createUser(
        tenant,
        parseOrThrow(CreateUserInput, {
          email,
          first_name: names.first,
          last_name: names.last,
          role: roleFromLtiRoles(claims[CLAIM.roles]),
        }),
        operator,
        at,
      )
      const winner = await linkOrWinner(tenant, issuer, sub, created, at)
      return winner ? { user: winner, created: false } : { user: created, created: true }
    } catch (err) {
      // Two first launches of one person at once: the other made the user; find it by e-mail.
      if (err instanceof ConflictError && err.code === 'user.email_taken') continue
      // No seat left: no account can be given; the learner sees that, and nothing more.
      if (err instanceof EntitlementError)
        throw new AccountRefused('AccountInactive', 'seat cap reached', 'seat_cap_reached')
      throw err
    }
  }
  throw new AccountRefused('SamlInvalidAssertion', 'the account could not be settled', 'account_unsettled')
}

/** Links the platform user; when a concurrent launch linked it first, that link's user wins. */
async function linkOrWinner(
  tenant: TenantContext,
  issuer: string,
  sub: string,
  user: User,
  at: string,
): Promise<User | undefined> {
  if (await linkIdentity(tenant, issuer, sub, user.id, at)) return undefined
  const winnerId = await linkedUserId(tenant, issuer, sub)
  const winner = winnerId ? await getUser(tenant, winnerId, { consistent: true }) : undefined
  return winner ? usable(winner, 'link') : undefined
}
