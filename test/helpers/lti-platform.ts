/**
 * An LTI 1.3 platform written for the tests: its own RS256 key pair and JWKS served on loopback,
 * an OIDC authorization endpoint that answers the tool's redirect with a form_post of a signed
 * id_token (as a browser would receive it), a deep-linking return endpoint that verifies the tool's
 * response against the tool's JWKS, a start page that begins a third-party-initiated login, and
 * Assignment and Grade Services: a token endpoint that verifies the tool's client assertion against
 * the tool's JWKS (fetched from its URL) and line items whose `/scores` record what is posted;
 * Names and Role Provisioning Services: a context's memberships, paged with `Link: rel="next"`, for
 * a bearer token the token endpoint issued for the NRPS scope.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { lookup } from 'node:dns'
import { Agent } from 'undici'
import { inject } from 'vitest'
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { addDeployment, register } from '../../shared/services/lti/lti-registrations-service.ts'
import { call, type Reply } from './http.ts'

export const LTI = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  custom: 'https://purl.imsglobal.org/spec/lti/claim/custom',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  data: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
  ags: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
} as const

export const AGS_SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score'
export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly'
export const NRPS_CLAIM = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'
export const CONTEXT_CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/context'
const MEMBERSHIP_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json'

/** A member as NRPS 2.0 lists it (`status` absent means Active). */
export interface PlatformMember {
  readonly user_id: string
  readonly roles: readonly string[]
  readonly status?: 'Active' | 'Inactive' | 'Deleted'
  readonly email?: string
  readonly name?: string
  readonly given_name?: string
  readonly family_name?: string
}

/** A score the line item's `/scores` endpoint accepted, with the line item and the request's content type. */
export interface PostedScore {
  readonly lineItem: string
  readonly contentType: string | undefined
  readonly body: {
    readonly userId: string
    readonly scoreGiven: number
    readonly scoreMaximum: number
    readonly activityProgress: string
    readonly gradingProgress: string
    readonly timestamp: string
  }
}

export interface DeepLinkReturn {
  readonly payload: JWTPayload & Record<string, unknown>
  readonly kid: string | undefined
}

export interface Platform {
  readonly base: string
  readonly issuer: string
  readonly clientId: string
  readonly jwksUrl: string
  readonly authUrl: string
  readonly returnUrl: string
  readonly kid: string
  readonly publicPem: string
  /** Signs `claims` as the platform (RS256, its kid) unless told otherwise. */
  sign(claims: Record<string, unknown>): Promise<string>
  /** What the authorization endpoint puts in the id_token it posts (browser flows). */
  nextClaims: Record<string, unknown>
  /** Deep-linking responses the return endpoint received, verified against `toolJwksUrl`. */
  readonly returns: DeepLinkReturn[]
  /** The tool's JWKS URL and Host (where the return endpoint verifies responses). */
  toolJwks: { url: string; host: string } | undefined
  /** How many times the JWKS was fetched. */
  jwksFetches: number
  /** More endpoints of the platform (lti-dynamic-registration.ts): true when it answered the request. */
  extra?: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>
  /** The token endpoint (client credentials with a client assertion) and the tokens it gave. */
  readonly tokenUrl: string
  readonly tokenRequests: { readonly scope: string | null }[]
  /** A line item's URL (its scores are posted to `<url>/scores`). */
  lineItemUrl(id: string): string
  /** Scores accepted, in arrival order. */
  readonly scores: PostedScore[]
  /** The next this many score posts are answered 500 (and not recorded). */
  failNextScores: number
  /** While true, the token endpoint answers 401 `invalid_client` to every request. */
  refuseTokens: boolean
  /** The members of each context, served by `membershipsUrl(context)` `membersPerPage` at a time. */
  readonly members: Map<string, PlatformMember[]>
  membersPerPage: number
  membershipsUrl(contextId: string): string
  /** Memberships pages served (with a valid NRPS token), in order: `<context>#<page>`. */
  readonly membershipPages: string[]
  close(): Promise<void>
}

const formPage = (action: string, fields: Record<string, string>) =>
  `<!doctype html><html><body><form id="f" method="post" action="${action}">${Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/"/g, '&quot;')}">`)
    .join('')}</form><script>document.getElementById('f').submit()</script></body></html>`

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

/** How a test registers its platform: the defaults are what the launch tests need. */
export interface RegisterOptions {
  readonly deploymentId?: string
  /** The course the deployment is bound to; none by default. */
  readonly courseId?: string | null
  readonly deepLinking?: boolean
  /** Give the registration the platform's token endpoint (AGS and NRPS need it). */
  readonly services?: boolean
}

/**
 * Registers `platform` with the tenant, with one deployment (`deployment-1` bound to no course and
 * deep linking on, unless the options say otherwise). @returns the registration's id.
 */
export async function registerPlatform(
  tenant: TenantContext,
  platform: Platform,
  options: RegisterOptions = {},
): Promise<string> {
  const registration = await register(tenant, {
    issuer: platform.issuer,
    clientId: platform.clientId,
    jwksUrl: platform.jwksUrl,
    authUrl: platform.authUrl,
    deepLinking: options.deepLinking ?? true,
    ...(options.services ? { tokenUrl: platform.tokenUrl } : {}),
  })
  await addDeployment(
    tenant,
    registration.id,
    options.deploymentId ?? 'deployment-1',
    options.courseId ?? null,
  )
  return registration.id
}

/**
 * @param options.issuerAtBase the platform's issuer is its own origin (`http://127.0.0.1:<port>`),
 * as Dynamic Registration requires of the configuration it serves
 */
export async function startPlatform(options: { issuerAtBase?: boolean } = {}): Promise<Platform> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = `platform-${randomBytes(4).toString('hex')}`
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }
  const publicPem = await exportSPKI(publicKey)
  const returns: DeepLinkReturn[] = []
  let issuer = `https://platform-${randomBytes(4).toString('hex')}.example.com`
  const clientId = `client-${randomBytes(4).toString('hex')}`

  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey)

  const platform: Platform = {
    base: '',
    issuer,
    clientId,
    jwksUrl: '',
    authUrl: '',
    returnUrl: '',
    kid,
    publicPem,
    sign,
    nextClaims: {},
    returns,
    toolJwks: undefined,
    jwksFetches: 0,
    tokenUrl: '',
    tokenRequests: [],
    lineItemUrl: () => '',
    scores: [],
    failNextScores: 0,
    refuseTokens: false,
    members: new Map(),
    membersPerPage: 2,
    membershipsUrl: () => '',
    membershipPages: [],
    close: async () => undefined,
  }
  /** Each token issued, with the scopes it was issued for. */
  const issuedTokens = new Map<string, readonly string[]>()

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://platform')
      if (url.pathname === '/jwks') {
        platform.jwksFetches += 1
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ keys: [publicJwk] }))
      }
      if (url.pathname === '/auth') {
        // The platform's side of the OIDC login: a signed id_token posted to the redirect_uri.
        const q = url.searchParams
        const now = Math.floor(Date.now() / 1000)
        const token = await sign({
          iss: issuer,
          aud: q.get('client_id'),
          sub: q.get('login_hint'),
          nonce: q.get('nonce'),
          iat: now,
          exp: now + 300,
          ...platform.nextClaims,
        })
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end(
          formPage(q.get('redirect_uri') ?? '', { id_token: token, state: q.get('state') ?? '' }),
        )
      }
      if (url.pathname === '/start') {
        // A third-party-initiated login, as the platform's launch button starts it.
        const q = url.searchParams
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end(
          formPage(q.get('login') ?? '', {
            iss: issuer,
            login_hint: q.get('login_hint') ?? 'user',
            target_link_uri: q.get('target') ?? '',
            client_id: clientId,
          }),
        )
      }
      if (url.pathname === '/return' && req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req))
        const jwt = form.get('JWT') ?? ''
        const tool = platform.toolJwks
        if (!tool) throw new Error('toolJwks is not set')
        const jwks = (await call('GET', new URL(tool.url).pathname, { host: tool.host })).body as {
          keys: JWK[]
        }
        const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(jwks), {
          audience: issuer,
          issuer: clientId,
          algorithms: ['RS256'],
        })
        returns.push({ payload: payload as DeepLinkReturn['payload'], kid: protectedHeader.kid })
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end('<!doctype html><p id="returned">Content selected</p>')
      }
      if (await platform.extra?.(req, res, url)) return
      if (url.pathname === '/token' && req.method === 'POST') {
        const form = new URLSearchParams(await readBody(req))
        const refused = platform.refuseTokens
          ? 'tokens refused by the test'
          : await clientAssertionProblem(platform, form)
        if (refused) {
          res.writeHead(401, { 'content-type': 'application/json' })
          return res.end(JSON.stringify({ error: 'invalid_client', error_description: refused }))
        }
        platform.tokenRequests.push({ scope: form.get('scope') })
        const token = randomBytes(16).toString('hex')
        issuedTokens.set(token, (form.get('scope') ?? '').split(' '))
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(
          JSON.stringify({
            access_token: token,
            token_type: 'Bearer',
            expires_in: 3600,
            scope: form.get('scope'),
          }),
        )
      }
      const scores = /^\/lineitems\/([\w-]+)\/scores$/.exec(url.pathname)
      if (scores && req.method === 'POST') {
        const body = await readBody(req)
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        if (!bearer || !issuedTokens.has(bearer)) {
          res.writeHead(401)
          return res.end()
        }
        if (platform.failNextScores > 0) {
          platform.failNextScores -= 1
          res.writeHead(500)
          return res.end()
        }
        platform.scores.push({
          lineItem: platform.lineItemUrl(scores[1] ?? ''),
          contentType: req.headers['content-type'],
          body: JSON.parse(body) as PostedScore['body'],
        })
        res.writeHead(204)
        return res.end()
      }
      const memberships = /^\/contexts\/([\w-]+)\/memberships$/.exec(url.pathname)
      if (memberships && req.method === 'GET') return serveMemberships(req, res, url, memberships[1] ?? '')
      res.writeHead(404)
      res.end()
    })().catch(() => {
      res.writeHead(500)
      res.end()
    })
  })
  /** One page of a context's members for a token issued with the NRPS scope; 401/403 otherwise. */
  function serveMemberships(req: IncomingMessage, res: ServerResponse, url: URL, contextId: string) {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    const scopes = bearer ? issuedTokens.get(bearer) : undefined
    if (!scopes) {
      res.writeHead(401)
      return res.end()
    }
    if (!scopes.includes(NRPS_SCOPE)) {
      res.writeHead(403)
      return res.end()
    }
    const all = platform.members.get(contextId) ?? []
    const page = Number(url.searchParams.get('page') ?? '1')
    const size = platform.membersPerPage
    platform.membershipPages.push(`${contextId}#${page}`)
    const headers: Record<string, string> = { 'content-type': MEMBERSHIP_MEDIA_TYPE }
    if (page * size < all.length)
      headers.link = `<${platform.membershipsUrl(contextId)}?page=${page + 1}>; rel="next"`
    res.writeHead(200, headers)
    return res.end(
      JSON.stringify({
        id: `${platform.membershipsUrl(contextId)}?page=${page}`,
        context: { id: contextId, label: contextId, title: `Course ${contextId}` },
        members: all.slice((page - 1) * size, page * size),
      }),
    )
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const base = `http://127.0.0.1:${port}`
  if (options.issuerAtBase) issuer = base
  return Object.assign(platform, {
    base,
    issuer,
    jwksUrl: `${base}/jwks`,
    authUrl: `${base}/auth`,
    returnUrl: `${base}/return`,
    tokenUrl: `${base}/token`,
    lineItemUrl: (id: string) => `${base}/lineitems/${id}`,
    membershipsUrl: (contextId: string) => `${base}/contexts/${contextId}/memberships`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}

/**
 * Connects `<slug>.localhost` to the stack's gateway (the system resolver does not know those
 * names), so the platform fetches the tool's JWKS from its own URL as a platform would.
 */
const toGateway = new Agent({
  connect: {
    lookup: (hostname, options, callback) =>
      lookup(
        hostname.endsWith('.localhost') ? new URL(inject('gatewayUrl')).hostname : hostname,
        options,
        callback,
      ),
  },
})

/**
 * Why the token request is refused, or undefined: the client-credentials grant with a JWT
 * assertion that the tool's JWKS verifies (iss = sub = client id, aud = the token URL, jti, exp).
 */
async function clientAssertionProblem(
  platform: Platform,
  form: URLSearchParams,
): Promise<string | undefined> {
  if (form.get('grant_type') !== 'client_credentials') return 'grant_type'
  if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
    return 'client_assertion_type'
  const tool = platform.toolJwks
  if (!tool) return 'toolJwks is not set'
  const jwksUrl = new URL(tool.url)
  jwksUrl.host = `${tool.host}:${new URL(inject('gatewayUrl')).port}`
  const jwks = createRemoteJWKSet(jwksUrl, {
    [customFetch]: (url, options) => fetch(url, { ...options, dispatcher: toGateway } as RequestInit),
  })
  try {
    const { payload } = await jwtVerify(form.get('client_assertion') ?? '', jwks, {
      issuer: platform.clientId,
      subject: platform.clientId,
      audience: platform.tokenUrl,
      algorithms: ['RS256'],
      requiredClaims: ['jti', 'exp', 'iat'],
    })
    return payload.jti ? undefined : 'jti'
  } catch (err) {
    return err instanceof Error ? err.name : 'assertion'
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

export function postForm(
  host: string,
  path: string,
  fields: Record<string, string>,
  cookie?: string,
): Promise<Reply> {
  return call('POST', path, {
    host,
    rawBody: new URLSearchParams(fields).toString(),
    headers: { ...FORM, ...(cookie ? { cookie } : {}) },
  })
}

/** `name=value` of every Set-Cookie of a reply, ready to send back. */
export function cookiesOf(reply: Reply): string {
  const raw = reply.headers['set-cookie']
  const list = Array.isArray(raw) ? raw : raw ? [raw] : []
  return list.map((c) => c.split(';')[0]).join('; ')
}

export interface LoginResult {
  readonly reply: Reply
  readonly state: string
  readonly nonce: string
  readonly cookie: string
}

export async function startLogin(
  host: string,
  platform: Platform,
  target: string,
  loginHint = 'user',
): Promise<LoginResult> {
  const reply = await postForm(host, '/api/v1/lti/login', {
    iss: platform.issuer,
    login_hint: loginHint,
    target_link_uri: target,
    client_id: platform.clientId,
  })
  const location = new URL(String(reply.headers.location))
  return {
    reply,
    state: location.searchParams.get('state') ?? '',
    nonce: location.searchParams.get('nonce') ?? '',
    cookie: cookiesOf(reply),
  }
}

/** Claims of a resource-link launch, overridable one by one (`undefined` removes one). */
export function launchClaims(platform: Platform, nonce: string, extra: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000)
  const claims: Record<string, unknown> = {
    iss: platform.issuer,
    aud: platform.clientId,
    sub: `sub-${randomUUID()}`,
    nonce,
    iat: now,
    exp: now + 300,
    [LTI.messageType]: 'LtiResourceLinkRequest',
    [LTI.version]: '1.3.0',
    [LTI.deploymentId]: 'deployment-1',
    [LTI.roles]: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
    given_name: 'Grace',
    family_name: 'Hopper',
    email: `grace-${randomBytes(3).toString('hex')}@example.com`,
    ...extra,
  }
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k]
  return claims
}
