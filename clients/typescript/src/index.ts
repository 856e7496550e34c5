/**
 * A typed client of the LMS API: openapi-fetch over the types openapi-typescript generated from the
 * API's OpenAPI document (schema.d.ts), so every path, parameter, body and answer is checked when
 * the caller compiles, and a success's `data` or an error's envelope is read without casts.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch'
import type { paths } from './schema.d.ts'

export type { components, operations, paths, webhooks } from './schema.d.ts'

export type LmsClient = Client<paths>

export interface LmsClientOptions {
  /** The tenant's origin (`https://acme.lms.example.com`), or the service's when `tenant` is given. */
  readonly baseUrl: string
  /** The tenant's slug, put in front of the host of `baseUrl`: tenants are told apart by subdomain. */
  readonly tenant?: string
  /** Sent as `Authorization: Bearer <key>`; leave it out for the public routes (plans, sign-up, docs). */
  readonly apiKey?: string
  /** Another fetch (a proxy, a resolver for local hosts); the global one by default. */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** `https://lms.example.com` and `acme` make `https://acme.lms.example.com`. */
export function tenantBaseUrl(baseUrl: string, tenant?: string): string {
  const url = new URL(baseUrl)
  if (tenant) url.hostname = `${tenant}.${url.hostname}`
  return url.href.replace(/\/+$/, '')
}

function bearer(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${apiKey}`)
      return request
    },
  }
}

export function createLmsClient(options: LmsClientOptions): LmsClient {
  const client = createClient<paths>({
    baseUrl: tenantBaseUrl(options.baseUrl, options.tenant),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  if (options.apiKey) client.use(bearer(options.apiKey))
  return client
}
