/**
 * The signature headers of one attempt (decision 0045), checked by the standardwebhooks library
 * rather than by our own arithmetic: new `whsec_` secrets as the library takes them, both secrets
 * of a rotation, and a secret of the earlier form (base64url of 24 bytes) by the bytes it encodes.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { newSigningSecret, signatureHeaders } from '../../../shared/domain/webhooks/webhook.ts'

const body = JSON.stringify({ id: 'e1', event: 'user.created', createdAt: '2026-01-01T00:00:00Z', data: {} })
const now = () => Math.floor(Date.now() / 1000)

describe('Webhook signature headers', () => {
  it('makes whsec_ secrets of 32 random bytes in base64', () => {
    const secrets = [newSigningSecret(), newSigningSecret()]
    for (const s of secrets) expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secrets[0]?.slice(6) ?? '', 'base64')).toHaveLength(32)
    expect(secrets[0]).not.toBe(secrets[1])
  })

  it('signs webhook-signature so that the library verifies it with each signing secret alone', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()]
    const id = randomUUID()
    const headers = signatureHeaders([current, previous], id, now(), body)
    expect(headers['webhook-id']).toBe(id)
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2)
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow(WebhookVerificationError)
    expect(() => new Webhook(current).verify(body.replace('e1', 'e2'), headers)).toThrow(
      WebhookVerificationError,
    )
  })

  it('keys an earlier secret by the bytes it encodes, and its x-service-signature by the whole string, as before', () => {
    // Forced to hold both base64url-only characters, which the library's own decoder refuses.
    const bytes = Buffer.concat([Buffer.from([0xfb, 0xff]), randomBytes(22)])
    const earlier = `whsec_${bytes.toString('base64url')}`
    const t = now()
    const headers = signatureHeaders([earlier], randomUUID(), t, body)
    expect(earlier).toMatch(/[-_]/)
    expect(new Webhook(bytes, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(`whsec_${bytes.toString('base64')}`).verify(body, headers)).toEqual(JSON.parse(body))
    expect(headers['x-service-signature']).toBe(
      `t=${t},v1=${createHmac('sha256', earlier).update(`${t}.${body}`).digest('hex')}`,
    )
  })
})
