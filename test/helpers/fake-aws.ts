/**
 * A local HTTP server standing in for an AWS endpoint the product calls with its own signed
 * requests (Secrets Manager, SQS, SES): it records each request as it arrived and answers from a
 * script of replies, then with the default reply. Only to see the requests and inject faults.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Received } from './sigv4.ts'

export interface Reply {
  readonly status: number
  readonly body: unknown
  readonly headers?: Record<string, string>
}

export interface FakeAws {
  readonly endpoint: string
  readonly received: Received[]
  /** Answered in order before the default reply. */
  replies: Reply[]
  reset(): void
  close(): Promise<void>
}

export async function startFakeAws(
  contentType: string,
  defaultReply: (r: Received) => Reply,
): Promise<FakeAws> {
  const fake = {
    endpoint: '',
    received: [] as Received[],
    replies: [] as Reply[],
    reset() {
      fake.received.length = 0
      fake.replies = []
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }
      fake.received.push(r)
      const reply = fake.replies.shift() ?? defaultReply(r)
      res.writeHead(reply.status, { 'content-type': contentType, ...reply.headers })
      res.end(JSON.stringify(reply.body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  fake.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}
