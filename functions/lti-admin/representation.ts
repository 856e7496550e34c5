/** How an LTI platform registration reads over the API: never a secret (it holds none). */
import * as v from 'valibot'
import type { LtiDeployment, LtiRegistration } from '../../shared/domain/lti/lti.ts'

export const LtiDeploymentSchema = v.object({
  registration_id: v.string(),
  deployment_id: v.string(),
  course_id: v.nullable(v.string()),
})

export const LtiRegistrationSchema = v.object({
  id: v.string(),
  issuer: v.string(),
  client_id: v.string(),
  jwks_url: v.string(),
  auth_url: v.string(),
  token_url: v.nullable(v.string()),
  deep_linking: v.boolean(),
  is_active: v.boolean(),
  created_at: v.string(),
  deployments: v.array(LtiDeploymentSchema),
})

export const toLtiDeploymentResource = (d: LtiDeployment): v.InferOutput<typeof LtiDeploymentSchema> => ({
  registration_id: d.registrationId,
  deployment_id: d.deploymentId,
  course_id: d.courseId,
})

export const toLtiRegistrationResource = (
  r: LtiRegistration,
  deployments: readonly LtiDeployment[],
): v.InferOutput<typeof LtiRegistrationSchema> => ({
  id: r.id,
  issuer: r.issuer,
  client_id: r.clientId,
  jwks_url: r.jwksUrl,
  auth_url: r.authUrl,
  token_url: r.tokenUrl,
  deep_linking: r.deepLinking,
  is_active: r.isActive,
  created_at: r.createdAt,
  deployments: deployments
    .map(toLtiDeploymentResource)
    .sort((a, b) => (a.deployment_id < b.deployment_id ? -1 : a.deployment_id > b.deployment_id ? 1 : 0)),
})

/** A Dynamic Registration link as `POST /api/v1/lti/registration-links` answers it (its only showing). */
export const RegistrationLinkSchema = v.object({ url: v.string(), expires_at: v.string() })

/** What the platform adds to a Dynamic Registration link when it opens it (Dynamic Registration 3.3). */
export const DynamicRegistrationQuery = v.object({
  openid_configuration: v.optional(v.string()),
  registration_token: v.optional(v.string()),
})
