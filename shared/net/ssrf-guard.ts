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
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6')
}

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** `::ffff:a.b.c.d` (in either spelling) is the IPv4 address it maps. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '')
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted?.[1]) return { address: dotted[1], family: 'ipv4' }
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (hex?.[1] && hex[2]) {
    const hi = parseInt(hex[1], 16)
    const lo = parseInt(hex[2], 16)
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' }
  }
  return { address: lower, family: isIP(lower) === 4 ? 'ipv4' : 'ipv6' }
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
  if (blocked.check(a.address, a.family)) throw new UnsafeTargetError(`${address} is not a public address`)
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
