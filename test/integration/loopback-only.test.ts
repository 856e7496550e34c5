/**
 * The local stack's stores have no authentication: whoever reaches DynamoDB Local reads every
 * tenant and can write an admin key. They, and the gateway, must answer on loopback only.
 */
import { spawnSync } from 'node:child_process'
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { describe, expect, inject, it } from 'vitest'

/** The machine's own addresses that another machine could connect to (link-local left out). */
function networkAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80:'))
    .map((a) => a?.address ?? '')
}

/** Whether a TCP connection to host:port is accepted (refused or no answer within 10 s: false). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 10_000 })
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('timeout', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(false))
  })
}

/** The local addresses the listening sockets on `port` are bound to, as `ss -ltn` shows them. */
function boundAddresses(port: number): string[] {
  const out = spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
  if (out.error || out.status !== 0) throw new Error('`ss` is needed to read the listening sockets')
  return out.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[3] ?? '')
    .filter(Boolean)
    .map((local) => local.slice(0, local.lastIndexOf(':')))
}

const isLoopback = (address: string) =>
  /^(127\.\d+\.\d+\.\d+|\[::ffff:127\.\d+\.\d+\.\d+\]|\[::1\])$/.test(address)

describe('Local stack: the stores and the gateway listen on loopback only', () => {
  it('refuses a machine on the developer network that connects to DynamoDB Local, the SQS/S3 emulator or the gateway', async ({
    annotate,
  }) => {
    const services = {
      'DynamoDB Local': Number(inject('dynamoPort')),
      'the SQS/S3 emulator': Number(inject('emulatorPort')),
      'the gateway': Number(new URL(inject('gatewayUrl')).port),
    }
    for (const [name, port] of Object.entries(services)) {
      expect(await accepts('127.0.0.1', port), `${name} answers on 127.0.0.1:${port}`).toBe(true)
    }

    const addresses = networkAddresses()
    if (addresses.length === 0) {
      await annotate('This machine has no network address: checked the listening sockets instead.')
      for (const [name, port] of Object.entries(services)) {
        const bound = boundAddresses(port)
        expect(bound.length, `${name} listens on port ${port}`).toBeGreaterThan(0)
        expect(
          bound.filter((a) => !isLoopback(a)),
          `${name} is bound beyond loopback`,
        ).toEqual([])
      }
      return
    }
    for (const address of addresses) {
      for (const [name, port] of Object.entries(services)) {
        expect(await accepts(address, port), `${name} answers on ${address}, port ${port}`).toBe(false)
      }
    }
  })
})
