/**
 * LTI 1.3 items in the tenant's partition (docs/data-model.md, decision 0020): registrations with
 * their (issuer, client id) guard, deployments, login states (state + nonce, single use, TTL),
 * identity links (issuer, sub) → user, and the tool's signing keys with the pointer that says
 * which key signs and which is published next.
 */
import * as v from 'valibot'
import type { LtiDeployment, LtiRegistration } from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { batchDelete, conditionally, deleteItem, getItem, putItem, queryAll, updateItem } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { defineEntity, field, optionalField } from '../core/entity.ts'
import { cond, conditionExpression, queryExpression, updateExpression } from '../core/expression.ts'
import { keys, TTL_ATTRIBUTE } from '../core/keys.ts'
import { commit, writeOrRefuse, type Step } from '../core/transaction.ts'
import { deleteMembershipServicesOf } from './lti-nrps-store.ts'

export type LtiRefusal = 'registration_exists' | 'id_taken' | 'deployment_exists' | 'keys_exist' | 'stale'

const registrationEntity = defineEntity(
  'lti_registration',
  {
    id: field('id', v.string()),
    issuer: field('issuer', v.string()),
    clientId: field('client_id', v.string()),
    jwksUrl: field('jwks_url', v.string()),
    authUrl: field('auth_url', v.string()),
    tokenUrl: optionalField('token_url', v.string()),
    deepLinking: field('deep_linking', v.boolean()),
    isActive: field('is_active', v.boolean()),
    createdAt: field('created_at', v.string()),
  },
  { key: (tenant: TenantContext, r) => keys.ltiRegistration(tenant, r.id) },
)

const deploymentEntity = defineEntity(
  'lti_deployment',
  {
    registrationId: field('registration_id', v.string()),
    deploymentId: field('deployment_id', v.string()),
    courseId: optionalField('course_id', v.string()),
  },
  { key: (tenant: TenantContext, d) => keys.ltiDeployment(tenant, d.registrationId, d.deploymentId) },
)

/** Keyed by the state, which is not stored: the launch that consumes it names it. */
const loginStateEntity = defineEntity(
  'lti_login_state',
  {
    registrationId: field('registration_id', v.string()),
    nonce: field('nonce', v.string()),
    redirectKind: field('redirect_kind', v.picklist(['launch', 'deep_link'])),
    expiresEpoch: field('expires_epoch', v.number()),
  },
  {
    key: (at: { tenant: TenantContext; state: string }) => keys.ltiLoginState(at.tenant, at.state),
    derived: (_, s) => ({ [TTL_ATTRIBUTE]: s.expiresEpoch }),
  },
)

// Pointers whose key is the look-up and whose one attribute is all that is read: the
// (issuer, client id) guard, the identity link (issuer, sub) → user and the users' e-mail guard.
const ClientItem = v.object({ registration_id: v.string() })
const IdentityItem = v.object({ user_id: v.string() })
const EmailGuardItem = v.object({ user_id: v.string() })

export const ltiParams = {
  insertRegistration: (tenant: TenantContext, r: LtiRegistration): Step<LtiRefusal>[] => {
    const notThere = conditionExpression(cond.notExists())
    return [
      {
        item: {
          Put: {
            Item: registrationEntity.item(tenant, r),
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
    ...updateExpression({ set: registrationEntity.encode({ isActive: false }, ['isActive']) }, cond.exists()),
    ReturnValues: 'ALL_NEW' as const,
  }),

  /** Only what the change makes different (`attribute_exists`): a concurrent change of another field stays. */
  update: (tenant: TenantContext, before: LtiRegistration, after: LtiRegistration) => ({
    Key: keys.ltiRegistration(tenant, after.id),
    ...updateExpression(registrationEntity.changeOf(before, after), cond.exists()),
  }),

  /** The registration and its (issuer, client id) guard go together: the pair may be registered again. */
  remove: (tenant: TenantContext, r: LtiRegistration): Step<LtiRefusal>[] => [
    {
      item: { Delete: { Key: keys.ltiRegistration(tenant, r.id), ...conditionExpression(cond.exists()) } },
      refusal: 'stale',
    },
    { item: { Delete: { Key: keys.ltiClient(tenant, r.issuer, r.clientId) } } },
  ],

  deploymentsOf: (tenant: TenantContext, registrationId: string) =>
    queryExpression({
      key: cond.and(
        cond.eq('pk', keys.tenantPartition(tenant)),
        cond.beginsWith('sk', keys.ltiDeploymentsOfPrefix(registrationId)),
      ),
    }),

  removeDeployment: (tenant: TenantContext, registrationId: string, deploymentId: string) => ({
    Key: keys.ltiDeployment(tenant, registrationId, deploymentId),
    ...conditionExpression(cond.exists()),
  }),

  putDeployment: (tenant: TenantContext, d: LtiDeployment) => ({
    Item: deploymentEntity.item(tenant, d),
    ...conditionExpression(cond.notExists()),
  }),

  putLoginState: (tenant: TenantContext, s: NewLoginState) => ({
    Item: loginStateEntity.item({ tenant, state: s.state }, s),
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
  return item ? registrationEntity.decode(item) : undefined
}

export async function listRegistrations(tenant: TenantContext): Promise<LtiRegistration[]> {
  return (await queryAll(ltiParams.listRegistrations(tenant))).map(registrationEntity.decode)
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
    return item ? registrationEntity.decode(item) : undefined
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
  return item ? deploymentEntity.decode(item) : undefined
}

/** @returns false when the registration is gone */
export function updateRegistration(
  tenant: TenantContext,
  before: LtiRegistration,
  after: LtiRegistration,
): Promise<boolean> {
  return conditionally(updateItem(ltiParams.update(tenant, before, after)))
}

/**
 * Deletes the registration with its guard, then its deployments and the NRPS services kept for its
 * contexts (one left by a failure in between is unreachable: every launch and every sync finds its
 * registration first).
 * @throws WriteRefused naming `stale` when the registration is gone already
 */
export async function deleteRegistration(tenant: TenantContext, r: LtiRegistration): Promise<void> {
  await commit(ltiParams.remove(tenant, r))
  const deployments = await queryAll(ltiParams.deploymentsOf(tenant, r.id))
  await batchDelete(
    deployments.map((d) => keys.ltiDeployment(tenant, r.id, deploymentEntity.decode(d).deploymentId)),
  )
  await deleteMembershipServicesOf(tenant, r.id)
}

export async function deploymentsOf(tenant: TenantContext, registrationId: string): Promise<LtiDeployment[]> {
  return (await queryAll(ltiParams.deploymentsOf(tenant, registrationId))).map(deploymentEntity.decode)
}

/** @returns false when there was no such deployment */
export function deleteDeployment(
  tenant: TenantContext,
  registrationId: string,
  deploymentId: string,
): Promise<boolean> {
  return conditionally(deleteItem(ltiParams.removeDeployment(tenant, registrationId, deploymentId)))
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
): Promise<Pick<NewLoginState, 'registrationId' | 'redirectKind'> | undefined> {
  let old: Record<string, unknown> | undefined
  const used = await conditionally(
    deleteItem(ltiParams.consumeLoginState(tenant, state, nonce, nowEpoch)).then((x) => {
      old = x
    }),
  )
  if (!used || !old) return undefined
  const { registrationId, redirectKind } = loginStateEntity.decode(old)
  return { registrationId, redirectKind }
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
