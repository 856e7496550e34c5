/**
 * Headers of a deprecated route, declared in the route table: `Deprecation` (RFC 9745, a
 * structured date `@<unix seconds>`) and `Sunset` (RFC 8594, an HTTP-date), plus a `Link` to the
 * migration notes when there is one. Clients get at least 12 months between the two.
 */
import type { RouteDef } from '../routes.ts'

export function deprecationHeaders(route: RouteDef | undefined): Record<string, string> {
  const d = route?.deprecation
  if (!d) return {}
  // RFC 9745: Deprecation is a structured date (@unix seconds); RFC 8594: Sunset is an HTTP-date.
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(Date.parse(d.since) / 1000)}`,
    sunset: new Date(d.sunset).toUTCString(),
  }
  if (d.link) headers.link = `<${d.link}>; rel="deprecation"`
  return headers
}
