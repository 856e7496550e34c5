/**
 * Route group `fallback` (API Gateway's $default route): every request that matches no route.
 * The three planned-but-unavailable endpoints answer 404 with a pointer to what to use instead.
 */
import { errorResult } from '../../shared/http/responses.ts'
import { staticHttpStack } from '../../shared/http/static-stack.ts'
import type { HttpEvent, HttpResult } from '../../shared/http/context.ts'

const unavailable: readonly { method: string; pattern: RegExp; message: string }[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v1\/users\/[^/]+\/enrollments$/,
    message: 'This endpoint is not available; use GET /api/v1/enrollments?user_id=<user_id>',
  },
  { method: 'POST', pattern: /^\/api\/v1\/users\/bulk$/, message: 'Bulk user creation is not available yet' },
  {
    method: 'POST',
    pattern: /^\/api\/v1\/auth\/token$/,
    message: 'Token authentication is not available; use an API key',
  },
]

export function notFound(event: HttpEvent): HttpResult {
  const method = event.requestContext?.http?.method ?? ''
  const hit = unavailable.find((u) => u.method === method && u.pattern.test(event.rawPath))
  return errorResult(404, hit?.message ?? 'No such endpoint')
}

export const handler = staticHttpStack([], async (event) => notFound(event))
