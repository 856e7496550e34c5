/**
 * Keyless routes the corporate site calls from the browser (plans catalog, sign-up, contact) are
 * readable cross-origin by that one configured origin, and by no other.
 */
import { config } from '../config.ts'
import type { HttpEvent, HttpResult } from './context.ts'

export function corsHeaders(event: HttpEvent): Record<string, string> {
  const origin = event.headers?.origin
  const base = { vary: 'Origin' }
  if (origin !== config.corporateOrigin) return base
  return { ...base, 'access-control-allow-origin': origin }
}

/** The answer to a preflight: the grant for the corporate site, nothing for anyone else. */
export function preflight(event: HttpEvent, methods: string): HttpResult {
  const cors = corsHeaders(event)
  const allowed = 'access-control-allow-origin' in cors
  return {
    statusCode: 204,
    headers: allowed
      ? {
          ...cors,
          'access-control-allow-methods': methods,
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '300',
        }
      : cors,
  }
}
