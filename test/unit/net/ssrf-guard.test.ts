import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendOutbound } from '../../../shared/net/outbound-http.ts'
import {
  checkAddress,
  checkTarget,
  checkUrl,
  isLoopback,
  UnsafeTargetError,
  type Resolver,
} from '../../../shared/net/ssrf-guard.ts'

const strict = { allowLoopback: false }
const resolveTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

describe('Function: checkUrl', () => {
  it.each([
    ['http://example.com/hook', 'https'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.1/hook', 'loopback (short form)'],
    ['https://2130706433/hook', 'decimal IPv4'],
    ['https://0177.0.0.1/hook', 'octal IPv4'],
    ['https://0x7f.0.0.1/hook', 'hex IPv4'],
    ['https://10.1.2.3/hook', 'private 10/8'],
    ['https://172.20.0.1/hook', 'private 172.16/12'],
    ['https://192.168.1.1/hook', 'private 192.168/16'],
    ['https://169.254.10.10/hook', 'link-local'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://100.64.0.1/hook', 'carrier-grade NAT'],
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://[::1]/hook', 'IPv6 loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'IPv4-mapped IPv6 loopback'],
    ['https://[::ffff:10.0.0.1]/hook', 'IPv4-mapped IPv6 private'],
    ['https://[fd00:ec2::254]/hook', 'IPv6 unique local (AWS metadata)'],
    ['https://[fe80::1]/hook', 'IPv6 link-local'],
    ['https://[::ffff:7f00:1]/hook', 'IPv4-mapped IPv6 loopback, hex spelling'],
    ['https://[::]/hook', 'IPv6 unspecified'],
    ['https://[::127.0.0.1]/hook', 'IPv4-compatible loopback'],
    ['https://[::8.8.8.8]/hook', 'IPv4-compatible, refused whole'],
    ['https://[::ffff:0:127.0.0.1]/hook', 'IPv4-translated loopback'],
    ['https://[::ffff:0:a9fe:a9fe]/hook', 'IPv4-translated metadata'],
    ['https://[64:ff9b::127.0.0.1]/hook', 'NAT64 loopback'],
    ['https://[64:ff9b::10.0.0.1]/hook', 'NAT64 private'],
    ['https://[64:ff9b::a9fe:a9fe]/hook', 'NAT64 metadata'],
    ['https://[64:ff9b::]/hook', 'NAT64 of 0.0.0.0'],
    ['https://[64:ff9b:1::808:808]/hook', 'local-use NAT64, refused whole'],
    ['https://[2002:7f00:1::1]/hook', '6to4 loopback'],
    ['https://[2002:808:808::1]/hook', '6to4, refused whole'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'Teredo'],
    ['https://[2001:2::1]/hook', 'benchmarking'],
    ['https://[2001:20::1]/hook', 'ORCHIDv2'],
    ['https://[2001:db8::1]/hook', 'IPv6 documentation'],
    ['https://[3fff::1]/hook', 'IPv6 documentation (RFC 9637)'],
    ['https://[100::1]/hook', 'IPv6 discard'],
    ['https://[5f00::1]/hook', 'SRv6 SID'],
    ['https://[fc00::1]/hook', 'IPv6 unique local fc00::/8'],
    ['https://[fec0::1]/hook', 'IPv6 site-local'],
    ['https://[ff02::1]/hook', 'IPv6 multicast'],
    ['https://db.internal/hook', '.internal'],
    ['https://printer.local/hook', '.local'],
    ['https://localhost/hook', 'localhost'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['not a url', 'garbage'],
  ])('refuses %s (%s)', (url) => {
    expect(() => checkUrl(url, strict)).toThrow(UnsafeTargetError)
  })

  it('accepts a public https URL', () => {
    expect(checkUrl('https://hooks.example.com/lms?x=1', strict).hostname).toBe('hooks.example.com')
    expect(checkUrl('https://93.184.216.34/hook', strict).hostname).toBe('93.184.216.34')
  })

  it('accepts a public IPv6 address, and NAT64 or IPv4-translated forms of a public IPv4 address', () => {
    expect(checkUrl('https://[2606:4700:4700::1111]/hook', strict).hostname).toBe('[2606:4700:4700::1111]')
    expect(checkUrl('https://[64:ff9b::93.184.216.34]/hook', strict).hostname).toBe('[64:ff9b::5db8:d822]')
    expect(checkUrl('https://[::ffff:0:93.184.216.34]/hook', strict).hostname).toBe('[::ffff:0:5db8:d822]')
  })

  it('lets loopback (also over http) through only when allowed', () => {
    const local = { allowLoopback: true }
    expect(checkUrl('http://127.0.0.1:9/hook', local).port).toBe('9')
    expect(checkUrl('http://[::1]:9/hook', local).port).toBe('9')
    expect(() => checkUrl('http://10.0.0.1/hook', local)).toThrow(UnsafeTargetError)
    expect(() => checkUrl('http://example.com/hook', local)).toThrow(UnsafeTargetError)
  })

  it('never counts a translated or embedded 127.0.0.1 as loopback', () => {
    const local = { allowLoopback: true }
    for (const host of ['::127.0.0.1', '::ffff:0:127.0.0.1', '64:ff9b::127.0.0.1', '2002:7f00:1::1']) {
      expect(isLoopback(host)).toBe(false)
      expect(() => checkUrl(`https://[${host}]/hook`, local)).toThrow(UnsafeTargetError)
    }
  })
})

describe('Function: checkAddress', () => {
  it.each([
    '::7f00:1',
    '::127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '::FFFF:0:A00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::169.254.169.254',
    '64:FF9B::C0A8:101',
    '64:ff9b:1::5db8:d822',
    '2002:5db8:d822::1',
    '2001::1',
    '2001:2::1',
    'fec0::1',
  ])('refuses the resolved address %s', (address) => {
    expect(() => checkAddress(address, strict)).toThrow(UnsafeTargetError)
  })

  it.each(['2606:4700:4700::1111', '64:ff9b::5db8:d822', '64:ff9b::93.184.216.34', '::ffff:0:5db8:d822'])(
    'accepts the resolved address %s',
    (address) => {
      expect(() => checkAddress(address, strict)).not.toThrow()
    },
  )
})

describe('Function: checkTarget', () => {
  it('refuses a public-looking name that resolves to a private address', async () => {
    await expect(
      checkTarget('https://sneaky.example.com/', { allowLoopback: false, resolver: resolveTo('10.0.0.5') }),
    ).rejects.toThrow(UnsafeTargetError)
    await expect(
      checkTarget('https://dual.example.com/', {
        allowLoopback: false,
        resolver: resolveTo('93.184.216.34', '127.0.0.1'),
      }),
    ).rejects.toThrow(UnsafeTargetError)
    const ok = await checkTarget('https://fine.example.com/', {
      allowLoopback: false,
      resolver: resolveTo('93.184.216.34'),
    })
    expect(ok.hostname).toBe('fine.example.com')
  })

  it('refuses a name that resolves to an IPv6 form of an internal IPv4 address', async () => {
    for (const address of [
      '::7f00:1',
      '::ffff:0:a00:5',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1',
      '2002:a00:5::1',
    ]) {
      await expect(
        checkTarget('https://sneaky.example.com/', { allowLoopback: false, resolver: resolveTo(address) }),
      ).rejects.toThrow(UnsafeTargetError)
    }
    const ok = await checkTarget('https://v6.example.com/', {
      allowLoopback: false,
      resolver: resolveTo('2606:4700:4700::1111'),
    })
    expect(ok.hostname).toBe('v6.example.com')
  })
})

describe('Function: sendOutbound', () => {
  let server: Server
  let port = 0
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' })
        res.end()
        return
      }
      if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 1500)
        return
      }
      res.end('x'.repeat(10_000))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const local = { allowLoopback: true }

  it('never follows a redirect', async () => {
    const result = await sendOutbound({
      url: `http://127.0.0.1:${port}/redirect`,
      method: 'POST',
      headers: {},
      timeoutMs: 2000,
      guard: local,
    })
    expect(result).toMatchObject({ kind: 'response', status: 302 })
  })

  it('keeps only the first 4 KB of a response', async () => {
    const result = await sendOutbound({
      url: `http://127.0.0.1:${port}/big`,
      method: 'POST',
      headers: {},
      timeoutMs: 2000,
      guard: local,
    })
    expect(result.kind === 'response' && result.body.length).toBe(4096)
  })

  it('gives up at the deadline and never reports the late answer', async () => {
    const result = await sendOutbound({
      url: `http://127.0.0.1:${port}/slow`,
      method: 'POST',
      headers: {},
      timeoutMs: 300,
      guard: local,
    })
    expect(result).toMatchObject({ kind: 'failure', reason: 'timeout' })
  })

  it('refuses at connect time a name that now resolves to a private address', async () => {
    let calls = 0
    const resolver: Resolver = async () => [
      { address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
    ]
    const guard = { allowLoopback: false, resolver }
    await checkTarget(`https://rebind.example.com:${port}/`, guard)
    const result = await sendOutbound({
      url: `https://rebind.example.com:${port}/`,
      method: 'POST',
      headers: {},
      timeoutMs: 2000,
      guard,
    })
    expect(result).toMatchObject({ kind: 'failure', reason: 'refused' })
  })

  it('refuses loopback when it is not allowed', async () => {
    const result = await sendOutbound({
      url: `http://127.0.0.1:${port}/`,
      method: 'POST',
      headers: {},
      timeoutMs: 2000,
      guard: strict,
    })
    expect(result).toMatchObject({ kind: 'failure', reason: 'refused' })
  })
})
