/**
 * The tool's URLs on the tenant's own host: the configured scheme and `<slug>.<serviceHost>` (the
 * port the request came to is kept, for the local stack), never a scheme or host as a request
 * header sends it (issue 26: X-Forwarded-Proto `https://evil.example/#` made an open redirect).
 * The LTI pages and the registration links (decision 0051) both build their URLs here.
 */
import { config } from '../config.ts'
import type { ToolUrls } from '../services/lti/lti-launch-service.ts'
import type { HttpEvent } from './context.ts'
import { slugFromHost } from './tenant-from-host.ts'

export function toolUrls(event: HttpEvent): ToolUrls {
  const host = event.headers?.host ?? event.requestContext?.domainName ?? ''
  const slug = slugFromHost(host, config.serviceHost)
  const port = /:(\d{1,5})$/.exec(host)?.[0] ?? ''
  const origin = `${config.publicScheme}://${slug ? `${slug}.` : ''}${config.serviceHost}${port}`
  return { origin, api: `${origin}/api/v1` }
}
