/**
 * Deprecation headers: `Deprecation` (RFC 9745, a structured date `@<unix seconds>`) and `Sunset`
 * (RFC 8594, an HTTP-date), plus a `Link` to the migration notes when there is one. Clients get at
 * least 12 months between the two. A deprecated route declares its notice in the route table; a
 * deprecated response field (billing's `activeUsersThisMonth`) is announced the same way by the
 * route that still sends it.
 */
import type { RouteDef } from '../routes.ts'

export interface DeprecationNotice {
  readonly since: string
  readonly sunset: string
  readonly link?: string
}

export function deprecationNoticeHeaders(d: DeprecationNotice): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(Date.parse(d.since) / 1000)}`,
    sunset: new Date(d.sunset).toUTCString(),
  }
  if (d.link) headers.link = `<${d.link}>; rel="deprecation"`
  return headers
}

export function deprecationHeaders(route: RouteDef | undefined): Record<string, string> {
  return route?.deprecation ? deprecationNoticeHeaders(route.deprecation) : {}
}
