/**
 * A fetch for the typed client against the local stack, whose tenants live at `<slug>.localhost`.
 * Node resolves names through the system resolver, which here does not know `*.localhost`
 * (browsers and curl answer them themselves), and fetch drops a Host header set by hand; so the
 * connection to `*.localhost` goes to the loopback address while the URL, and the Host header,
 * keep the tenant's name. In AWS the tenant's subdomain is real DNS and the global fetch does.
 */
import { lookup } from 'node:dns'
import { Agent } from 'undici'

const loopback = new Agent({
  connect: {
    lookup: (hostname, options, callback) =>
      lookup(hostname.endsWith('.localhost') ? '127.0.0.1' : hostname, options, callback),
  },
})

export const localhostFetch = (request: Request): Promise<Response> =>
  fetch(request, { dispatcher: loopback })
