/** `lms lti ...`: platform registrations, their deployments and the tool's key rotation. */
import type { LtiRegistration } from '../shared/domain/lti/lti.ts'
import * as keysService from '../shared/services/lti/lti-keys-service.ts'
import * as lti from '../shared/services/lti/lti-registrations-service.ts'
import { syncContext } from '../shared/services/lti/lti-roster-service.ts'
import { onOff, required } from './args.ts'
import { tenantOf, command, type Command } from './flags.ts'

function registrationView(r: LtiRegistration) {
  return {
    id: r.id,
    issuer: r.issuer,
    client_id: r.clientId,
    jwks_url: r.jwksUrl,
    auth_url: r.authUrl,
    token_url: r.tokenUrl,
    deep_linking: r.deepLinking,
    is_active: r.isActive,
  }
}

const ringView = async (tenant: Awaited<ReturnType<typeof tenantOf>>) => {
  const { keys } = await keysService.publishedJwks(tenant)
  return { published_kids: keys.map((k) => k.kid) }
}

export const ltiCommands: Record<string, Command> = {
  'lti register': command(
    '--tenant S --issuer ISS --client-id C --jwks-url URL --auth-url URL [--token-url URL] [--deep-linking on|off]',
    'register an LTI 1.3 platform',
    async (f) => {
      const tokenUrl = f.get('token-url')
      return registrationView(
        await lti.register(await tenantOf(f), {
          issuer: required(f, 'issuer'),
          clientId: required(f, 'client-id'),
          jwksUrl: required(f, 'jwks-url'),
          authUrl: required(f, 'auth-url'),
          ...(tokenUrl !== undefined ? { tokenUrl } : {}),
          deepLinking: onOff(f, 'deep-linking') ?? false,
        }),
      )
    },
  ),
  'lti deployment add': command(
    '--tenant S --registration ID --deployment-id D [--course ID]',
    "add a platform's deployment id",
    async (f) => {
      const d = await lti.addDeployment(
        await tenantOf(f),
        required(f, 'registration'),
        required(f, 'deployment-id'),
        f.get('course') ?? null,
      )
      return { registration_id: d.registrationId, deployment_id: d.deploymentId, course_id: d.courseId }
    },
  ),
  'lti deactivate': command('--tenant S --registration ID', 'deactivate a platform registration', async (f) =>
    registrationView(await lti.deactivate(await tenantOf(f), required(f, 'registration'))),
  ),
  'lti list': command('--tenant S', "a tenant's platform registrations", async (f) => ({
    data: (await lti.listRegistrations(await tenantOf(f))).map(registrationView),
  })),
  /** NRPS (decision 0052): the URL is the last Instructor launch's claim for the context, or --url. */
  'lti roster sync': command(
    '--tenant S --registration ID --context CONTEXT_ID [--url MEMBERSHIPS_URL --deployment D]',
    "give the context's Learner members accounts and enrollments in the deployment's course (NRPS)",
    async (f) => {
      const url = f.get('url')
      const deploymentId = f.get('deployment')
      return syncContext(await tenantOf(f), {
        registrationId: required(f, 'registration'),
        contextId: required(f, 'context'),
        ...(url !== undefined ? { url } : {}),
        ...(deploymentId !== undefined ? { deploymentId } : {}),
      })
    },
  ),
  /** Rotation step 1: publish the next key (wait at least the JWKS cache time, one hour, before step 2). */
  'lti key stage': command(
    '--tenant S',
    "publish the tool's next signing key (rotation step 1)",
    async (f) => {
      const tenant = await tenantOf(f)
      const ring = await keysService.stageToolKey(tenant)
      return { current_kid: ring.currentKid, next_kid: ring.nextKid, ...(await ringView(tenant)) }
    },
  ),
  /** Rotation step 2: the published next key signs from now on. */
  'lti key promote': command(
    '--tenant S',
    'let the published next key sign (rotation step 2, an hour after step 1 at least)',
    async (f) => {
      const tenant = await tenantOf(f)
      const ring = await keysService.promoteToolKey(tenant)
      return { current_kid: ring.currentKid, next_kid: ring.nextKid, ...(await ringView(tenant)) }
    },
  ),
}
