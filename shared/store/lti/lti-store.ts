/**
 * LTI 1.3 items in the tenant's partition (docs/data-model.md, decision 0020): registrations with
 * their (issuer, client id) guard, deployments, login states (state + nonce, single use, TTL),
 * identity links (issuer, sub) → user, and the tool's signing keys with the pointer that says
 * which key signs and which is published next.
 */
import * as v from 'valibot'
import type { LtiDeployment, LtiRegistration } from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { conditionally, deleteItem, getItem, putItem, queryAll, updateItem } from '../core/db.ts'
import { decodeItem, nullable } from '../core/decode.ts'
import { cond, conditionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'

export type LtiRefusal = 'registration_exists' | 'id_taken' | 'deployment_exists' | 'keys_exist' | 'stale'

const RegistrationItem = v.object({
  id: v.string(),
  issuer: v.string(),
  client_id: v.string(),
  jwks_url: v.string(),
  auth_url: v.string(),
  token_url: nullable(v.string()),
  deep_linking: v.boolean(),
  is_active: v.boolean(),
  created_at: v.string(),
})

function toRegistration(item: Record<string, unknown>): LtiRegistration {
  const r = decodeItem('lti_registration', RegistrationItem, item)
  return {
    id: r.id,
    issuer: r.issuer,
    clientId: r.client_id,
    jwksUrl: r.jwks_url,
    authUrl: r.auth_url,
    tokenUrl: r.token_url,
    deepLinking: r.deep_linking,
    isActive: r.is_active,
    createdAt: r.created_at,
  }
}

const DeploymentItem = v.object({
  registration_id: v.string(),
  deployment_id: v.string(),
  course_id: nullable(v.string()),
})

const ClientItem = v.object({ registration_id: v.string() })
const LoginStateItem = v.object({ registration_id: v.string(), nonce: v.string(), redirect_kind: v.string() })
const IdentityItem = v.object({ user_id: v.string() })
const EmailGuardItem = v.object({ user_id: v.string() })

export const ltiParams = {
  insertRegistration: (tenant: TenantContext, r: LtiRegistration): Step<LtiRefusal>[] => {
    const notThere = conditionExpression(cond.notExists())
    return [
      {
        item: {
          Put: {
            Item: {
              ...keys.ltiRegistration(tenant, r.id),
              type: 'lti_registration',
              id: r.id,
              issuer: r.issuer,
              client_id: r.clientId,
              jwks_url: r.jwksUrl,
              auth_url: r.authUrl,
              token_url: r.tokenUrl,
              deep_linking: r.deepLinking,
              is_active: r.isActive,
              created_at: r.createdAt,
            },
            ...notThere,
          },
        },
        refusal: 'id_taken',
      },
      {
        item: {
          Put: {
            Item: {
              ...keys.ltiClient(tenant, r.issuer, r.clientId),
              type: 'lti_client',
              registration_id: r.id,
            },
            ...notThere,
          },
        },
        refusal: 'registration_exists',
      },
    ]
  },

  listRegistrations: (tenant: TenantContext) =>
    queryExpression({
      key: cond.and(
        cond.eq('pk', keys.tenantPartition(tenant)),
        cond.beginsWith('sk', keys.ltiRegistrationPrefix),
      ),
    }),

  /** Every client id registered for an issuer (a login may leave client_id out). */
  clientsOfIssuer: (tenant: TenantContext, issuer: string) =>
    queryExpression({
      key: cond.and(
        cond.eq('pk', keys.tenantPartition(tenant)),
        cond.beginsWith('sk', keys.ltiIssuerPrefix(issuer)),
      ),
    }),

  deactivate: (tenant: TenantContext, id: string) => ({
    Key: keys.ltiRegistration(tenant, id),
    ...updateExpression({ set: { is_active: false } }, cond.exists()),
    ReturnValues: 'ALL_NEW' as const,
  }),

  putDeployment: (tenant: TenantContext, d: LtiDeployment) => ({
    Item: {
      ...keys.ltiDeployment(tenant, d.registrationId, d.deploymentId),
      type: 'lti_deployment',
      registration_id: d.registrationId,
      deployment_id: d.deploymentId,
      course_id: d.courseId,
    },
    ...conditionExpression(cond.notExists()),
  }),

  putLoginState: (tenant: TenantContext, s: NewLoginState) => ({
    Item: {
      ...keys.ltiLoginState(tenant, s.state),
      type: 'lti_login_state',
      registration_id: s.registrationId,
      nonce: s.nonce,
      redirect_kind: s.redirectKind,
      expires_epoch: s.expiresEpoch,
      [TTL_ATTRIBUTE]: s.expiresEpoch,
    },
    ...conditionExpression(cond.notExists()),
  }),

  /**
   * The one launch that may use a state: deleted only while unexpired and holding this nonce, so of
   * two launches racing with one token exactly one deletes it (TTL deletion is late, hence the clock).
   */
  consumeLoginState: (tenant: TenantContext, state: string, nonce: string, nowEpoch: number) => ({
    Key: keys.ltiLoginState(tenant, state),
    ...conditionExpression(
      cond.and(cond.exists(), cond.eq('nonce', nonce), cond.gt('expires_epoch', nowEpoch)),
    ),
    ReturnValues: 'ALL_OLD' as const,
  }),

  linkIdentity: (tenant: TenantContext, issuer: string, sub: string, userId: string, at: string) => ({
    Item: { ...keys.ltiIdentity(tenant, issuer, sub), type: 'lti_identity', user_id: userId, linked_at: at },
    ...conditionExpression(cond.notExists()),
  }),
}

export interface NewLoginState {
  readonly state: string
  readonly nonce: string
  readonly registrationId: string
  /** Which route the id_token is posted to. */
  readonly redirectKind: 'launch' | 'deep_link'
  readonly expiresEpoch: number
}

/** @throws WriteRefused naming `registration_exists` (same issuer and client id) */
export async function insertRegistration(tenant: TenantContext, r: LtiRegistration): Promise<void> {
  await commit(ltiParams.insertRegistration(tenant, r))
}

export async function getRegistration(
  tenant: TenantContext,
  id: string,
): Promise<LtiRegistration | undefined> {
  const item = await getItem(keys.ltiRegistration(tenant, id))
  return item ? toRegistration(item) : undefined
}

export async function listRegistrations(tenant: TenantContext): Promise<LtiRegistration[]> {
  return (await queryAll(ltiParams.listRegistrations(tenant))).map(toRegistration)
}

/** The registrations of an issuer: the one of `clientId`, or all of them when it is not given. */
export async function registrationsOf(
  tenant: TenantContext,
  issuer: string,
  clientId: string | undefined,
): Promise<LtiRegistration[]> {
  const ids =
    clientId !== undefined
      ? [await getItem(keys.ltiClient(tenant, issuer, clientId))].flatMap((i) =>
          i ? [decodeItem('lti_client', ClientItem, i).registration_id] : [],
        )
      : (await queryAll(ltiParams.clientsOfIssuer(tenant, issuer))).map(
          (i) => decodeItem('lti_client', ClientItem, i).registration_id,
        )
  const found = await Promise.all(ids.map((id) => getRegistration(tenant, id)))
  return found.filter((r): r is LtiRegistration => r !== undefined && r.issuer === issuer)
}

/** @returns the registration as it now is, undefined when there is none */
export async function deactivateRegistration(
  tenant: TenantContext,
  id: string,
): Promise<LtiRegistration | undefined> {
  try {
    const item = await updateItem(ltiParams.deactivate(tenant, id))
    return item ? toRegistration(item) : undefined
  } catch (err) {
    if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return undefined
    throw err
  }
}

/** @throws WriteRefused naming `deployment_exists` */
export async function insertDeployment(tenant: TenantContext, d: LtiDeployment): Promise<void> {
  await writeOrRefuse(putItem(ltiParams.putDeployment(tenant, d)), 'deployment_exists' as LtiRefusal)
}

export async function getDeployment(
  tenant: TenantContext,
  registrationId: string,
  deploymentId: string,
): Promise<LtiDeployment | undefined> {
  const item = await getItem(keys.ltiDeployment(tenant, registrationId, deploymentId))
  if (!item) return undefined
  const d = decodeItem('lti_deployment', DeploymentItem, item)
  return { registrationId: d.registration_id, deploymentId: d.deployment_id, courseId: d.course_id }
}

export async function putLoginState(tenant: TenantContext, s: NewLoginState): Promise<void> {
  await putItem(ltiParams.putLoginState(tenant, s))
}

/** @returns the state's registration and route when this call used it up; undefined otherwise */
export async function consumeLoginState(
  tenant: TenantContext,
  state: string,
  nonce: string,
  nowEpoch: number,
): Promise<{ registrationId: string; redirectKind: string } | undefined> {
  let old: Record<string, unknown> | undefined
  const used = await conditionally(
    deleteItem(ltiParams.consumeLoginState(tenant, state, nonce, nowEpoch)).then((x) => {
      old = x
    }),
  )
  if (!used || !old) return undefined
  const s = decodeItem('lti_login_state', LoginStateItem, old)
  return { registrationId: s.registration_id, redirectKind: s.redirect_kind }
}

export async function linkedUserId(
  tenant: TenantContext,
  issuer: string,
  sub: string,
): Promise<string | undefined> {
  const item = await getItem(keys.ltiIdentity(tenant, issuer, sub), { ConsistentRead: true })
  return item ? decodeItem('lti_identity', IdentityItem, item).user_id : undefined
}

/** @returns false when the platform user is linked already (a concurrent first launch won) */
export function linkIdentity(
  tenant: TenantContext,
  issuer: string,
  sub: string,
  userId: string,
  at: string,
): Promise<boolean> {
  return conditionally(putItem(ltiParams.linkIdentity(tenant, issuer, sub, userId, at)))
}

/** The user holding a (lowercased) e-mail address, through the users' e-mail guard item. */
export async function userIdByEmail(tenant: TenantContext, emailLower: string): Promise<string | undefined> {
  const item = await getItem(keys.userEmail(tenant, emailLower), { ConsistentRead: true })
  return item ? decodeItem('email_guard', EmailGuardItem, item).user_id : undefined
}
