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
  getRegistration,
  insertDeployment,
  insertRegistration,
  listRegistrations as listStored,
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

export async function register(tenant: TenantContext, input: RegisterInput): Promise<LtiRegistration> {
  const registration: LtiRegistration = {
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
  if (!(await getRegistration(tenant, registrationId))) throw new NotFoundError('lti_registration')
  if (courseId !== null && !(await getCourse(tenant, courseId))) throw new NotFoundError('course')
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
