/**
 * HTML form bodies (`application/x-www-form-urlencoded`) for the routes the route table marks
 * `form` (LTI: platforms and browsers post forms): the body becomes a record of strings (a repeated
 * field keeps its first value). API Gateway may hand the body base64-encoded.
 */
import type { MiddyRequest } from './context.ts'

export function parseForm(raw: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(raw)) if (!(k in out)) out[k] = v
  return out
}

export function formBody() {
  return {
    before: function formBodyBefore(request: MiddyRequest): void {
      const event = request.event
      const body = event.body
      if (body === undefined || body === null || body === '') return
      const raw = event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body
      // Typed as a string by the event; the handler reads the record (PublicInput.body is unknown).
      ;(event as { body: unknown }).body = parseForm(raw)
      event.isBase64Encoded = false
    },
  }
}
