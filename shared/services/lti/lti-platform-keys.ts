/**
 * A platform's public keys, fetched from its registered JWKS URL through the guarded outbound
 * client (SSRF guard at save and at connect, no redirects, a deadline, a size cap) and cached per
 * URL by kid. A kid the cache does not know makes one refetch (the platform rotated), never more
 * per token, so a flood of made-up kids costs at most one fetch each.
 */
import type { JWK } from 'jose'
import { config } from '../../config.ts'
import { sendOutbound } from '../../net/outbound-http.ts'

const FETCH_TIMEOUT_MS = 5000
const MAX_JWKS_BYTES = 64 * 1024

const cache = new Map<string, ReadonlyMap<string, JWK>>()

async function fetchJwks(jwksUrl: string): Promise<ReadonlyMap<string, JWK>> {
  const res = await sendOutbound({
    url: jwksUrl,
    method: 'GET',
    headers: { accept: 'application/json' },
    timeoutMs: FETCH_TIMEOUT_MS,
    guard: { allowLoopback: config.allowLoopbackTargets },
    maxResponseBytes: MAX_JWKS_BYTES,
  })
  if (res.kind !== 'response' || res.status !== 200) throw new Error('The platform JWKS could not be fetched')
  const body = JSON.parse(res.body) as { keys?: unknown }
  if (!Array.isArray(body.keys)) throw new Error('The platform JWKS holds no keys')
  const keys = new Map<string, JWK>()
  for (const k of body.keys as JWK[]) {
    if (k && typeof k === 'object' && k.kty === 'RSA') keys.set(typeof k.kid === 'string' ? k.kid : '', k)
  }
  cache.set(jwksUrl, keys)
  return keys
}

/**
 * The platform's RSA key of `kid` (a token without kid: the JWKS's only key), or undefined.
 * @throws when the JWKS cannot be fetched or read
 */
export async function platformKey(jwksUrl: string, kid: string | undefined): Promise<JWK | undefined> {
  const pick = (keys: ReadonlyMap<string, JWK>) =>
    kid !== undefined ? keys.get(kid) : keys.size === 1 ? [...keys.values()][0] : undefined
  const cached = cache.get(jwksUrl)
  const hit = cached && pick(cached)
  if (hit) return hit
  return pick(await fetchJwks(jwksUrl))
}
