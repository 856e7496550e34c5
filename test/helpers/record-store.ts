/** A record-store (LRS) stand-in on loopback: records every request, answers the statuses chosen. */
import { startReceiver, type Answer, type Received, type Receiver } from './receiver.ts'

export interface RecordStore extends Receiver {
  /** The xAPI base URL to connect (`<url>/xapi`, ending before /statements). */
  readonly endpoint: string
  /** The PUT statement requests received so far, with their parsed bodies. */
  statements(): { req: Received; statementId: string | null; body: Record<string, unknown> }[]
}

export async function startRecordStore(
  answer: (n: number, req: Received) => Answer = () => ({ status: 204 }),
): Promise<RecordStore> {
  const r = await startReceiver(answer)
  return {
    ...r,
    endpoint: `${r.url}/xapi`,
    statements: () =>
      r.requests
        .filter((req) => req.method === 'PUT')
        .map((req) => ({
          req,
          statementId: new URL(req.url, r.url).searchParams.get('statementId'),
          body: JSON.parse(req.raw.toString('utf8')) as Record<string, unknown>,
        })),
  }
}
