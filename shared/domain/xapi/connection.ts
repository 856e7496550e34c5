/** A tenant's record-store (LRS) connection: its endpoint, credentials and identity mode. */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'

export const identityModes = ['anonymous', 'email'] as const
export type IdentityMode = (typeof identityModes)[number]

export interface LrsConnection {
  /**
   * Changes on every connect after a disconnect, so statements fanned out for an earlier
   * connection are never sent to a later one (disconnect stops export at once).
   */
  readonly id: string
  /** The xAPI base URL, ending before `/statements`, without a trailing slash. */
  readonly endpoint: string
  readonly key: string
  readonly sealedSecret: string
  readonly identityMode: IdentityMode
  /** Activity recorded before this instant is never exported (no back-fill). */
  readonly connectedAt: string
  readonly updatedAt: string
}

/**
 * The base URL as stored: no trailing slash, no query or fragment, not the statements resource
 * itself (the worker appends `/statements`; a doubled path would reach nothing).
 */
export function normalizeEndpoint(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new ValidationError('endpoint', 'endpoint must be an absolute https URL')
  }
  if (url.search || url.hash) {
    throw new ValidationError('endpoint', 'endpoint must not carry a query or a fragment')
  }
  const base = url.toString().replace(/\/+$/, '')
  if (/\/statements$/i.test(base)) {
    throw new ValidationError('endpoint', 'endpoint is the xAPI base URL, ending before /statements')
  }
  return base
}

export function statementsUrl(endpoint: string, query: string): string {
  return `${endpoint}/statements?${query}`
}

/** HTTP Basic credentials: `<key>:<secret>`, base64. */
export function basicAuth(key: string, secret: string): string {
  return `Basic ${Buffer.from(`${key}:${secret}`, 'utf8').toString('base64')}`
}

/** Credentials are printable text (a Basic header carries them), at most this long. */
const Credential = v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))

/**
 * The settings form over the API: `key` and `secret` both on the first save; afterwards a blank
 * or absent one keeps the saved one. Unknown fields are refused, naming them.
 */
export const ConnectionInput = v.strictObject({
  endpoint: v.pipe(v.string(), v.minLength(1, 'must be an absolute https URL')),
  key: v.optional(Credential),
  secret: v.optional(Credential),
  identity_mode: v.optional(v.picklist(identityModes, `must be ${identityModes.join(' or ')}`)),
})
export type ConnectionInput = v.InferOutput<typeof ConnectionInput>
