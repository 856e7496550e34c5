/**
 * The SSRF guard for every customer-supplied URL (webhook endpoints, record stores): https only,
 * no internal names, and no private, loopback, link-local, metadata or otherwise special address,
 * checked on the literal, on the resolved addresses when a URL is saved, and again at connect
 * time through the socket's own DNS lookup (so a name that turns private later is still refused).
 */
import { promises as dns, type LookupAddress } from 'node:dns'
import { BlockList, isIP } from 'node:net'

export class UnsafeTargetError extends Error {
  constructor(readonly reason: string) {
    super(`Target refused: ${reason}`)
    this.name = 'UnsafeTargetError'
  }
}

const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4')
}
for (const [net, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (RFC 4291 2.5.5.1): refused
  // whole rather than by the embedded IPv4, since nothing legitimate uses them any more.
  ['::', 96],
  ['100::', 64], // discard only
  // IETF protocol assignments: Teredo 2001::/32 (its IPv4 is obfuscated, so it cannot be judged),
  // benchmarking 2001:2::/48, ORCHID 2001:10::/28 and 2001:20::/28, anycast services; no web servers.
  ['2001::', 23],
  ['2001:db8::', 32], // documentation
  // 6to4, refused whole: the embedded IPv4 is only the site's relay router, the rest of the address
  // is routed beyond it, and the public relays are deprecated (RFC 7526).
  ['2002::', 16],
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // SRv6 segment identifiers (RFC 9602), never globally routed
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6')
}

/** IPv4-mapped `::ffff:a.b.c.d`: the local stack itself connects over IPv4, so it is that address. */
const mapped = new BlockList()
mapped.addSubnet('::ffff:0:0', 96, 'ipv6')

/**
 * A translator (SIIT, NAT64) connects on to the IPv4 address in the low 32 bits, so these are judged
 * by that address. Not refused whole: on an IPv6-only network DNS64 gives every IPv4-only public
 * name a 64:ff9b:: address.
 */
const translated = new BlockList()
translated.addSubnet('::ffff:0:0:0', 96, 'ipv6') // IPv4-translated (RFC 2765)
translated.addSubnet('64:ff9b::', 96, 'ipv6') // well-known NAT64 prefix (RFC 6052)

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** The IPv4 address in the low 32 bits of an IPv6 address, in either spelling (`::` is zeros). */
function low32(v6: string): string {
  const dotted = /\d+\.\d+\.\d+\.\d+$/.exec(v6)
  if (dotted) return dotted[0]
  const [hi = 0, lo = 0] = v6
    .split(':')
    .slice(-2)
    .map((group) => parseInt(group || '0', 16))
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`
}

function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '')
  if (isIP(lower) === 4) return { address: lower, family: 'ipv4' }
  if (mapped.check(lower, 'ipv6')) return { address: low32(lower), family: 'ipv4' }
  return { address: lower, family: 'ipv6' }
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true })

export interface GuardOptions {
  /** Loopback targets (and plain http to them) for local and test use only. */
  readonly allowLoopback: boolean
  /** How names resolve; the system resolver unless a test stands in. */
  readonly resolver?: Resolver
}

export function isLoopback(address: string): boolean {
  const a = unmapped(address)
  return loopback.check(a.address, a.family)
}

/** @throws UnsafeTargetError for an address no customer URL may reach. */
export function checkAddress(address: string, options: GuardOptions): void {
  const a = unmapped(address)
  if (options.allowLoopback && loopback.check(a.address, a.family)) return
  const refused =
    blocked.check(a.address, a.family) ||
    (a.family === 'ipv6' && translated.check(a.address, 'ipv6') && blocked.check(low32(a.address), 'ipv4'))
  if (refused) throw new UnsafeTargetError(`${address} is not a public address`)
}

const INTERNAL_NAMES = /(^|\.)(localhost|internal|local|localdomain|home\.arpa)$/

/**
 * Checks what can be checked without DNS: scheme, credentials, internal names, IP literals
 * (the URL parser has already turned decimal and octal IPv4 spellings into dotted form).
 */
export function checkUrl(raw: string, options: GuardOptions): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UnsafeTargetError('not a valid URL')
  }
  const host = url.hostname.replace(/\.$/, '').toLowerCase()
  const literal = host.replace(/^\[|\]$/g, '')
  const loopbackLiteral = isIP(literal) !== 0 && isLoopback(literal)
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && options.allowLoopback && (loopbackLiteral || host === 'localhost'))
  ) {
    throw new UnsafeTargetError('the URL must use https')
  }
  if (url.username || url.password) throw new UnsafeTargetError('credentials in the URL are not allowed')
  if (isIP(literal) !== 0) {
    checkAddress(literal, options)
    return url
  }
  if (!(options.allowLoopback && host === 'localhost') && INTERNAL_NAMES.test(host)) {
    throw new UnsafeTargetError(`${host} is an internal name`)
  }
  return url
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/**
 * A `lookup` for http.request: resolves as usual, then refuses the connection when any resolved
 * address is unsafe. This is the check at connect time.
 */
export function guardedLookup(options: GuardOptions) {
  const resolve = options.resolver ?? systemResolver
  return (hostname: string, opts: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        try {
          for (const a of addresses) checkAddress(a.address, options)
        } catch (refused) {
          return callback(refused as NodeJS.ErrnoException, [])
        }
        const first = addresses[0]
        if (!first)
          return callback(new UnsafeTargetError(`${hostname} did not resolve`) as NodeJS.ErrnoException, [])
        if (opts.all) return callback(null, addresses)
        callback(null, first.address, first.family)
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    )
  }
}

/** The check when a URL is saved: the literal rules, then every address the name resolves to. */
export async function checkTarget(raw: string, options: GuardOptions): Promise<URL> {
  const url = checkUrl(raw, options)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0) return url
  let addresses: LookupAddress[]
  try {
    addresses = await (options.resolver ?? systemResolver)(host)
  } catch {
    throw new UnsafeTargetError(`${host} does not resolve`)
  }
  for (const a of addresses) checkAddress(a.address, options)
  return url
}
