import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendOutbound } from '../../../shared/net/outbound-http.ts'
import { checkTarget, checkUrl, UnsafeTargetError, type Resolver } from '../../../shared/net/ssrf-guard.ts'

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

  it('lets loopback (also over http) through only when allowed', () => {
    const local = { allowLoopback: true }
    expect(checkUrl('http://127.0.0.1:9/hook', local).port).toBe('9')
    expect(checkUrl('http://[::1]:9/hook', local).port).toBe('9')
    expect(() => checkUrl('http://10.0.0.1/hook', local)).toThrow(UnsafeTargetError)
    expect(() => checkUrl('http://example.com/hook', local)).toThrow(UnsafeTargetError)
  })
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
