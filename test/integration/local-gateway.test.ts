/**
 * The local gateway stands for API Gateway (HTTP API): it refuses a payload over 10 MB with 413
 * before reading it, and takes request targets in origin form only (a path), the form API
 * Gateway's own front end is sent. Raw sockets, so nothing in a client library tidies the request.
 */
import { request } from 'node:http'
import { connect } from 'node:net'
import { describe, expect, inject, it } from 'vitest'
import { newTenant } from '../helpers/tenants.ts'

const tenMegabytes = 10 * 1024 * 1024
const gateway = () => new URL(inject('gatewayUrl'))

interface RawReply {
  readonly status: number
  readonly headers: Record<string, string>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  readonly body: any
}

/** The first complete response in `buf`, if there is one yet (the gateway always sends a length). */
function parseReply(buf: Buffer): RawReply | undefined {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'] ?? 0)
  const body = buf.subarray(end + 4)
  if (body.length < length) return undefined
  const text = body.subarray(0, length).toString('utf8')
  let json: unknown = text
  try {
    json = JSON.parse(text)
  } catch {
    // Not JSON: kept as text.
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: json }
}

/** Writes `head` as is on a new connection and waits (up to a minute) for the first response. */
function rawExchange(head: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = gateway()
    const socket = connect(Number(port), hostname)
    let got = Buffer.alloc(0)
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within 60 s; received: ${JSON.stringify(got.toString('latin1'))}`))
    }, 60_000)
    socket.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c])
      const reply = parseReply(got)
      if (!reply) return
      clearTimeout(timer)
      socket.destroy()
      resolve(reply)
    })
    socket.on('error', (err) => (clearTimeout(timer), reject(err)))
    socket.write(head)
  })
}

/**
 * POSTs a chunked body that never ends on its own: 256 KB pieces until the gateway answers or
 * `maxBytes` went out. Says how much was sent before the answer and whether the body was finished.
 */
function streamUntilAnswered(
  path: string,
  maxBytes: number,
): Promise<{ status: number; body: unknown; sent: number; finished: boolean }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = gateway()
    let sent = 0
    let finished = false
    let answered = false
    const req = request(
      {
        hostname,
        port,
        method: 'POST',
        path,
        agent: false,
        headers: { host: 'localhost', 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        answered = true
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown, sent, finished })
        })
        res.on('error', reject)
      },
    )
    // Once answered, the gateway may close while pieces are still on their way: not a failure.
    req.on('error', (err) => (answered ? undefined : reject(err)))
    const piece = Buffer.alloc(256 * 1024, 0x61)
    const pump = () => {
      while (!answered && sent < maxBytes) {
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      if (!answered) {
        finished = true
        req.end()
      }
    }
    req.write('{"padding":"')
    pump()
  })
}

describe('Local gateway: request limits as API Gateway sets them', () => {
  it('answers 413 in the envelope to a Content-Length over 10 MB, without waiting for the body', async () => {
    const reply = await rawExchange(
      'POST /api/v1/users HTTP/1.1\r\n' +
        'Host: localhost\r\n' +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${tenMegabytes + 1}\r\n\r\n`,
    )
    expect(reply.status).toBe(413)
    expect(reply.headers['content-type']).toContain('application/json')
    expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 413 } })
    expect(reply.body.error.message).toMatch(/10 MB/)
  }, 120_000)

  it('answers 413 instead of 100 Continue when a client asks before sending more than 10 MB', async () => {
    const reply = await rawExchange(
      'POST /api/v1/users HTTP/1.1\r\n' +
        'Host: localhost\r\n' +
        'Content-Type: application/json\r\n' +
        'Expect: 100-continue\r\n' +
        `Content-Length: ${tenMegabytes + 1}\r\n\r\n`,
    )
    expect(reply.status).toBe(413)
    expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 413 } })
  }, 120_000)

  it('refuses a chunked body as it grows past 10 MB, answering 413 before the sender has finished', async () => {
    const reply = await streamUntilAnswered('/api/v1/users', 200 * 1024 * 1024)
    expect(reply.status).toBe(413)
    expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 413 } })
    expect(reply.finished, `the gateway answered after reading ${reply.sent} bytes, all of them`).toBe(false)
  }, 120_000)

  it('still passes a body of exactly 10 MB to the route (401 without a key)', async () => {
    const t = await newTenant()
    const json = `{"padding":"${'a'.repeat(tenMegabytes - 14)}"}`
    expect(Buffer.byteLength(json)).toBe(tenMegabytes)
    const reply = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = gateway()
      const req = request(
        {
          hostname,
          port,
          method: 'POST',
          path: '/api/v1/users',
          agent: false,
          headers: { host: `${t.slug}.localhost`, 'content-type': 'application/json' },
        },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      )
      req.on('error', reject)
      req.end(json)
    })
    expect(reply).toBe(401)
  }, 120_000)
})

describe('Local gateway: request targets', () => {
  it('refuses an absolute-form target (GET http://evil.example/api/v1/users) with 400 instead of serving the Host header tenant', async () => {
    const t = await newTenant()
    for (const target of ['http://evil.example/api/v1/users', `http://${t.slug}.localhost/api/v1/users`]) {
      const reply = await rawExchange(
        `GET ${target} HTTP/1.1\r\n` +
          `Host: ${t.slug}.localhost\r\n` +
          `Authorization: Bearer ${t.adminKey}\r\n` +
          'Connection: close\r\n\r\n',
      )
      expect(reply.status, target).toBe(400)
      expect(reply.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
      expect(reply.body.error.message).toMatch(/request target/i)
    }
  })

  it('refuses the asterisk form (OPTIONS *) and routes a path starting with // as a path, not a host', async () => {
    const t = await newTenant()
    const star = await rawExchange('OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
    expect(star.status).toBe(400)
    expect(star.body).toMatchObject({ data: null, meta: null, error: { code: 400 } })
    const doubled = await rawExchange(
      'GET //evil.example/api/v1/users HTTP/1.1\r\n' +
        `Host: ${t.slug}.localhost\r\n` +
        `Authorization: Bearer ${t.adminKey}\r\n` +
        'Connection: close\r\n\r\n',
    )
    expect(doubled.status).toBe(404)
    expect(doubled.body).toMatchObject({ data: null, error: { code: 404 } })
  })
})
