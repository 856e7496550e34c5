/**
 * fauxqs (SQS and S3 in process) listens on 0.0.0.0 whatever it is told: its `host` option only
 * names the host of queue URLs. While it starts, its listen call is sent to the address we choose
 * instead; then the address it reports is checked, so an upgrade that listens another way stops
 * the stack rather than expose the emulator to the network.
 */
import { Server } from 'node:net'
import { startFauxqs, type FauxqsServer } from 'fauxqs'

type FauxqsOptions = NonNullable<Parameters<typeof startFauxqs>[0]>

export async function startFauxqsOn(host: string, options: FauxqsOptions): Promise<FauxqsServer> {
  const listen = Server.prototype.listen
  // Nothing else in this process listens while the stores start (the gateway comes after them).
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const [first] = args
    if (typeof first === 'object' && first !== null && (first as { host?: unknown }).host === '0.0.0.0') {
      args[0] = { ...first, host }
    }
    return (listen as (...a: unknown[]) => Server).apply(this, args)
  } as typeof listen
  let server: FauxqsServer
  try {
    server = await startFauxqs(options)
  } finally {
    Server.prototype.listen = listen
  }
  const bound = new URL(server.address).hostname
  if (bound !== host) {
    await server.stop()
    throw new Error(`The SQS/S3 emulator listens on ${bound} instead of ${host}`)
  }
  return server
}
