/** A webhook or record-store receiver on loopback: records every request, answers as told. */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly raw: Buffer
  readonly at: number
}

export type Answer = {
  status: number
  body?: string
  delayMs?: number
  redirect?: string
  headers?: Record<string, string>
}

export interface Receiver {
  readonly url: string
  readonly requests: Received[]
  /** Waits until `n` requests have arrived (or the time is up: a minute unless told). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** Every receiver still listening; the test setup closes them after each test. */
const open = new Set<Receiver>()
/** Webhook deliveries received since the last close, checked then against the document's `webhooks:`. */
const deliveries: { readonly headers: IncomingMessage['headers']; readonly body: string }[] = []

/** Closes the test's receivers, then fails it if any delivery they received broke the document. */
export async function closeOpenReceivers(): Promise<void> {
  await Promise.all([...open].map((r) => r.close()))
  const received = deliveries.splice(0)
  if (received.length === 0) return
  // Imported when first needed: the validator builds the document, which reaches shared/config (read
  // once, at its first import), and the test setup loads this module before a test file may set the
  // environment it wants config to read (vi.hoisted).
  const { webhookViolationOf } = await import('./openapi-validation.ts')
  const found = received.flatMap((d) => webhookViolationOf(d.headers, d.body) ?? [])
  if (found.length > 0) throw new Error(found.join('\n'))
}

export async function startReceiver(
  answer: (n: number, req: Received) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const requests: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const got: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks),
        at: Date.now(),
      }
      requests.push(got)
      deliveries.push({ headers: got.headers, body: got.raw.toString('utf8') })
      const a = answer(requests.length, got)
      const reply = () => {
        if (res.destroyed) return
        res.writeHead(a.status, {
          ...(a.redirect ? { location: a.redirect } : { 'content-type': 'text/plain' }),
          ...a.headers,
        })
        res.end(a.body ?? 'ok')
      }
      if (a.delayMs) setTimeout(reply, a.delayMs)
      else reply()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (requests.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      return requests
    },
    close: () =>
      new Promise<void>((r) => {
        open.delete(receiver)
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
  open.add(receiver)
  return receiver
}
