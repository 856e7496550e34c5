/**
 * The test platform's side of LTI Dynamic Registration 1.0: its OpenID configuration and a
 * registration endpoint that checks the bearer registration token and the tool's client
 * registration, then answers a client id (the platform's, so launches go through as usual) and a
 * deployment id, or refuses as told.
 */
import { randomBytes } from 'node:crypto'
import { readBody, type Platform } from './lti-platform.ts'

const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration'

export interface RegistrationEndpoint {
  /** The URL the platform appends as `openid_configuration`. */
  readonly configurationUrl: string
  /** The `registration_token` the platform appends; the endpoint requires it as the bearer. */
  readonly registrationToken: string
  /** The configuration served: change it to serve another. */
  configuration: Record<string, unknown>
  /** How the next registration is answered. */
  answer:
    | { readonly accept: true; readonly deploymentId: string | null }
    | { readonly accept: false; readonly status: number }
  /** The client registrations received with the right bearer, in order. */
  readonly received: Record<string, unknown>[]
  /** Requests refused for a missing or wrong bearer. */
  unauthorized: number
}

/** Required of a tool's registration (Dynamic Registration 3.6 and the LTI tool configuration). */
function registrationProblem(body: Record<string, unknown>): string | undefined {
  const tool = body[TOOL_CONFIGURATION] as Record<string, unknown> | undefined
  if (body.application_type !== 'web') return 'application_type'
  if (JSON.stringify(body.response_types) !== '["id_token"]') return 'response_types'
  for (const f of ['initiate_login_uri', 'jwks_uri'] as const) if (typeof body[f] !== 'string') return f
  if (!Array.isArray(body.redirect_uris) || body.redirect_uris.length === 0) return 'redirect_uris'
  if (!tool || typeof tool.domain !== 'string' || typeof tool.target_link_uri !== 'string')
    return TOOL_CONFIGURATION
  return undefined
}

const addToolPage = (link: string) =>
  `<!doctype html><html><body><h1>Add a tool</h1><iframe id="tool" src="${link.replace(/"/g, '&quot;')}"></iframe>` +
  `<script>addEventListener('message', (e) => { if (e.source !== document.getElementById('tool').contentWindow) return; ` +
  `const p = document.createElement('p'); p.id = 'closed'; p.textContent = JSON.stringify(e.data); document.body.append(p) })</script></body></html>`

/** The platform page that opens a registration link in a frame, as Moodle does (`/add-tool?link=<url>`). */
export const addToolUrl = (platform: Platform, link: string) =>
  `${platform.base}/add-tool?${new URLSearchParams({ link })}`

export function serveDynamicRegistration(platform: Platform): RegistrationEndpoint {
  const endpoint: RegistrationEndpoint = {
    configurationUrl: `${platform.base}/.well-known/openid-configuration`,
    registrationToken: `reg-${randomBytes(8).toString('hex')}`,
    configuration: {
      issuer: platform.issuer,
      authorization_endpoint: platform.authUrl,
      token_endpoint: `${platform.base}/token`,
      jwks_uri: platform.jwksUrl,
      registration_endpoint: `${platform.base}/register`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['iss', 'sub', 'given_name', 'family_name', 'email'],
      'https://purl.imsglobal.org/spec/lti-platform-configuration': {
        product_family_code: 'lms-tests',
        version: '1.0',
        messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
      },
    },
    answer: { accept: true, deploymentId: 'deployment-1' },
    received: [],
    unauthorized: 0,
  }
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  platform.extra = async (req, res, url) => {
    if (url.pathname === '/add-tool') {
      // The platform's admin page: the tool's link in a frame, and what the frame posts back shown.
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(addToolPage(url.searchParams.get('link') ?? ''))
      return true
    }
    if (url.pathname === '/.well-known/openid-configuration' && req.method === 'GET') {
      json(res, 200, endpoint.configuration)
      return true
    }
    if (url.pathname !== '/register' || req.method !== 'POST') return false
    if (req.headers.authorization !== `Bearer ${endpoint.registrationToken}`) {
      endpoint.unauthorized += 1
      json(res, 401, { error: 'invalid_token' })
      return true
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>
    endpoint.received.push(body)
    const problem = registrationProblem(body)
    if (problem) {
      json(res, 400, { error: 'invalid_client_metadata', error_description: problem })
      return true
    }
    const answer = endpoint.answer
    if (!answer.accept) {
      json(res, answer.status, { error: 'invalid_client_metadata' })
      return true
    }
    const tool = body[TOOL_CONFIGURATION] as Record<string, unknown>
    json(res, 200, {
      ...body,
      client_id: platform.clientId,
      [TOOL_CONFIGURATION]: {
        ...tool,
        ...(answer.deploymentId !== null ? { deployment_id: answer.deploymentId } : {}),
      },
    })
    return true
  }
  return endpoint
}
