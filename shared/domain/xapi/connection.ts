/** A tenant's record-store (LRS) connection: its endpoint, credentials and identity mode. */
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
