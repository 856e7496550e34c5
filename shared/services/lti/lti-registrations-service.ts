/** LTI registrations and deployments of a tenant (`lms lti ...`): customer URLs pass the SSRF guard. */
import { randomUUID } from 'node:crypto'
import { config } from '../../config.ts'
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.ts'
import type { LtiDeployment, LtiRegistration } from '../../domain/lti/lti.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { checkTarget, UnsafeTargetError } from '../../net/ssrf-guard.ts'
import { getCourse } from '../../store/courses/courses-store.ts'
import {
  deactivateRegistration,
  deleteDeployment,
  deleteRegistration,
  deploymentsOf,
  getRegistration,
  insertDeployment,
  insertRegistration,
  listRegistrations as listStored,
  updateRegistration,
  type LtiRefusal,
} from '../../store/lti/lti-store.ts'
import { isRefused } from '../../store/core/store-errors.ts'

export interface RegisterInput {
  readonly issuer: string
  readonly clientId: string
  readonly jwksUrl: string
  readonly authUrl: string
  readonly tokenUrl?: string
  readonly deepLinking?: boolean
}

const MAX_VALUE = 2048

function text(field: string, value: string): string {
  const v = value.trim()
  if (!v) throw new ValidationError(field, `${field} is required`)
  if (v.length > MAX_VALUE)
    throw new ValidationError(field, `${field} must be at most ${MAX_VALUE} characters`)
  return v
}

/** The URLs the tool fetches (JWKS) or sends browsers to (authorization, token): public https only. */
async function customerUrl(field: string, raw: string): Promise<string> {
  try {
    return (await checkTarget(text(field, raw), { allowLoopback: config.allowLoopbackTargets })).toString()
  } catch (err) {
    if (err instanceof UnsafeTargetError) throw new ValidationError(field, `${field}: ${err.reason}`)
    throw err
  }
}

/** A new, active registration of `input`, its values checked (the URLs through the SSRF guard). */
export async function newRegistration(input: RegisterInput): Promise<LtiRegistration> {
  return {
    id: randomUUID(),
    // The issuer is compared, never fetched: kept exactly as the platform sends it in `iss`.
    issuer: text('issuer', input.issuer),
    clientId: text('client_id', input.clientId),
    jwksUrl: await customerUrl('jwks_url', input.jwksUrl),
    authUrl: await customerUrl('auth_url', input.authUrl),
    tokenUrl: input.tokenUrl !== undefined ? await customerUrl('token_url', input.tokenUrl) : null,
    deepLinking: input.deepLinking ?? false,
    isActive: true,
    createdAt: new Date().toISOString(),
  }
}

export async function register(tenant: TenantContext, input: RegisterInput): Promise<LtiRegistration> {
  const registration = await newRegistration(input)
  try {
    await insertRegistration(tenant, registration)
  } catch (err) {
    if (isRefused<LtiRefusal>(err, 'registration_exists'))
      throw new ConflictError('lti.registration_exists', 'This issuer and client id are registered already')
    throw err
  }
  return registration
}

export async function addDeployment(
  tenant: TenantContext,
  registrationId: string,
  deploymentId: string,
  courseId: string | null,
): Promise<LtiDeployment> {
  await registrationOf(tenant, registrationId)
  // A reference in the body: refused naming the field (the API's 400; the CLI prints it the same).
  if (courseId !== null && !(await getCourse(tenant, courseId)))
    throw new ValidationError('course_id', 'course_id: unknown course')
  const deployment: LtiDeployment = {
    registrationId,
    deploymentId: text('deployment_id', deploymentId),
    courseId,
  }
  try {
    await insertDeployment(tenant, deployment)
  } catch (err) {
    if (isRefused<LtiRefusal>(err, 'deployment_exists'))
      throw new ConflictError('lti.deployment_exists', 'This deployment id is registered already')
    throw err
  }
  return deployment
}

export async function deactivate(tenant: TenantContext, registrationId: string): Promise<LtiRegistration> {
  const r = await deactivateRegistration(tenant, registrationId)
  if (!r) throw new NotFoundError('lti_registration')
  return r
}

export const listRegistrations = (tenant: TenantContext) => listStored(tenant)

export async function registrationOf(tenant: TenantContext, id: string): Promise<LtiRegistration> {
  const r = await getRegistration(tenant, id)
  if (!r) throw new NotFoundError('lti_registration')
  return r
}

export const deploymentsOfRegistration = (tenant: TenantContext, registrationId: string) =>
  deploymentsOf(tenant, registrationId)

/** What may change of a registration: its URLs and switches. Issuer and client id name it (its guard). */
export interface RegistrationChange {
  readonly jwksUrl?: string | undefined
  readonly authUrl?: string | undefined
  /** null removes it (no grade passback) */
  readonly tokenUrl?: string | null | undefined
  readonly deepLinking?: boolean | undefined
  /** false stops every launch (as `lms lti deactivate`); true lets them in again */
  readonly isActive?: boolean | undefined
}

export async function updateRegistrationOf(
  tenant: TenantContext,
  id: string,
  change: RegistrationChange,
): Promise<LtiRegistration> {
  const before = await registrationOf(tenant, id)
  const url = (field: string, raw: string | undefined) =>
    raw === undefined ? undefined : customerUrl(field, raw)
  const [jwksUrl, authUrl, tokenUrl] = await Promise.all([
    url('jwks_url', change.jwksUrl),
    url('auth_url', change.authUrl),
    change.tokenUrl === null ? null : url('token_url', change.tokenUrl),
  ])
  const after: LtiRegistration = {
    ...before,
    jwksUrl: jwksUrl ?? before.jwksUrl,
    authUrl: authUrl ?? before.authUrl,
    tokenUrl: tokenUrl === undefined ? before.tokenUrl : tokenUrl,
    deepLinking: change.deepLinking ?? before.deepLinking,
    isActive: change.isActive ?? before.isActive,
  }
  if (!(await updateRegistration(tenant, before, after))) throw new NotFoundError('lti_registration')
  return after
}

/** Deletes the registration and its deployments: its platform's launches are refused from now on. */
export async function deleteRegistrationOf(tenant: TenantContext, id: string): Promise<void> {
  const r = await registrationOf(tenant, id)
  try {
    await deleteRegistration(tenant, r)
  } catch (err) {
    if (isRefused<LtiRefusal>(err, 'stale')) throw new NotFoundError('lti_registration')
    throw err
  }
}

export async function removeDeployment(
  tenant: TenantContext,
  registrationId: string,
  deploymentId: string,
): Promise<void> {
  await registrationOf(tenant, registrationId)
  if (!(await deleteDeployment(tenant, registrationId, deploymentId)))
    throw new NotFoundError('lti_deployment')
}
