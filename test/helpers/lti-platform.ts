/**
 * An LTI 1.3 platform written for the tests: its own RS256 key pair and JWKS served on loopback,
 * an OIDC authorization endpoint that answers the tool's redirect with a form_post of a signed
 * id_token (as a browser would receive it), a deep-linking return endpoint that verifies the tool's
 * response against the tool's JWKS, and a start page that begins a third-party-initiated login.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createLocalJWKSet,
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
} as const

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

/**
 * Registers `platform` with the tenant as the launch tests need it: deep linking on, and the
 * deployment `deployment-1` bound to no course. @returns the registration's id.
 */
export async function registerPlatform(tenant: TenantContext, platform: Platform): Promise<string> {
  const registration = await register(tenant, {
    issuer: platform.issuer,
    clientId: platform.clientId,
    jwksUrl: platform.jwksUrl,
    authUrl: platform.authUrl,
    deepLinking: true,
  })
  await addDeployment(tenant, registration.id, 'deployment-1', null)
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
    close: async () => undefined,
  }

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
      res.writeHead(404)
      res.end()
    })().catch(() => {
      res.writeHead(500)
      res.end()
    })
  })
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
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
