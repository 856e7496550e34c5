/**
 * The hand-signed GetSecretValue (shared/crypto/secrets-manager.ts) against a local server: the
 * request is the one @aws-sdk/client-secrets-manager sends (same operation, body and signed
 * headers), its SigV4 signature verifies for the secretsmanager service, and refusals, retries and
 * empty secrets behave as they did with the SDK's client.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { SignatureV4 } from '@smithy/signature-v4'
import { Sha256Js } from '@smithy/core/checksum'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { secretString, type SecretsService } from '../../../shared/crypto/secrets-manager.ts'

const REGION = 'eu-west-1'
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:lms/encryption-AbCdEf`
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 'token-1',
}

interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> }

let server: Server
let endpoint: string
const received: Received[] = []
let replies: Reply[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      const reply = replies.shift() ?? { status: 200, body: { ARN: SECRET_ARN, SecretString: 'the-secret' } }
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.1', ...reply.headers })
      res.end(JSON.stringify(reply.body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((r) => server.close(() => r())))

beforeEach(() => {
  received.length = 0
  replies = []
})

const service = (): SecretsService => ({ endpoint, region: REGION, credentials: async () => credentials })

/** Signs the request again from what arrived (its signed headers only) and compares signatures. */
async function verifies(r: Received): Promise<{ service: string; region: string; ok: boolean }> {
  const auth = String(r.headers.authorization)
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(
      auth,
    )
  if (!m) return { service: '', region: '', ok: false }
  const [, , , region = '', svc = '', signedHeaders = '', signature] = m
  const names = signedHeaders.split(';')
  const headers = Object.fromEntries(names.map((n) => [n, String(r.headers[n])]))
  const amzDate = String(r.headers['x-amz-date'])
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  )
  const signer = new SignatureV4({ service: svc, region, credentials, sha256: Sha256Js })
  const again = await signer.sign(
    {
      method: r.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: r.url,
      query: {},
      headers,
      body: r.body,
    },
    { signingDate, signableHeaders: new Set(names) },
  )
  // The signed payload hash must be the body's own (the signer trusts the header when present).
  const bodyHash = new Sha256Js()
  bodyHash.update(new TextEncoder().encode(r.body))
  const hashMatches =
    r.headers['x-amz-content-sha256'] === undefined ||
    r.headers['x-amz-content-sha256'] === Buffer.from(await bodyHash.digest()).toString('hex')
  const signatureMatches = String(again.headers.authorization).endsWith(`Signature=${signature}`)
  return { service: svc, region, ok: hashMatches && signatureMatches }
}

describe('GetSecretValue without the Secrets Manager client', () => {
  it('sends what the SDK client sends, signed for secretsmanager in the region, and reads the string', async () => {
    expect(await secretString(SECRET_ARN, service())).toBe('the-secret')
    const sdk = new SecretsManagerClient({ region: REGION, endpoint, credentials, maxAttempts: 1 })
    const out = await sdk.send(new GetSecretValueCommand({ SecretId: SECRET_ARN }))
    expect(out.SecretString).toBe('the-secret')

    const [ours, theirs] = received
    if (!ours || !theirs) throw new Error('expected two requests')
    for (const r of [ours, theirs]) {
      expect(r.method).toBe('POST')
      expect(r.url).toBe('/')
      expect(r.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue')
      expect(r.headers['content-type']).toBe('application/x-amz-json-1.1')
      expect(r.headers['x-amz-security-token']).toBe('token-1')
      expect(JSON.parse(r.body)).toEqual({ SecretId: SECRET_ARN })
      expect(await verifies(r)).toEqual({ service: 'secretsmanager', region: REGION, ok: true })
    }
    // Every header the SDK signs that matters to the service is signed by ours too.
    const signed = (r: Received) =>
      /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))?.[1]?.split(';')
    const sdkSigned = (signed(theirs) ?? []).filter(
      (h) => !h.startsWith('amz-sdk-') && h !== 'x-amz-user-agent',
    )
    expect(signed(ours)).toEqual(expect.arrayContaining(sdkSigned))
  })

  it('a tampered request does not verify (the check above can fail)', async () => {
    await secretString(SECRET_ARN, service())
    const [ours] = received
    if (!ours) throw new Error('expected a request')
    expect((await verifies({ ...ours, body: JSON.stringify({ SecretId: 'another' }) })).ok).toBe(false)
  })

  it('a refusal names the error type, never the secret, and is not retried', async () => {
    replies = [
      {
        status: 400,
        body: {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        },
      },
    ]
    const err = await secretString(SECRET_ARN, service()).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toBe('GetSecretValue refused: 400 ResourceNotFoundException')
    expect(received).toHaveLength(1)
  })

  it('throttling and a 5xx are tried again, up to three attempts', async () => {
    replies = [
      { status: 400, body: { __type: 'com.amazonaws.secretsmanager#ThrottlingException' } },
      { status: 500, body: { __type: 'InternalServiceError' } },
    ]
    expect(await secretString(SECRET_ARN, service())).toBe('the-secret')
    expect(received).toHaveLength(3)

    replies = [500, 500, 500, 500].map((status) => ({ status, body: { __type: 'InternalServiceError' } }))
    received.length = 0
    await expect(secretString(SECRET_ARN, service())).rejects.toThrow('500 InternalServiceError')
    expect(received).toHaveLength(3)
  })

  it('a secret without a string value is refused', async () => {
    replies = [{ status: 200, body: { ARN: SECRET_ARN, SecretBinary: 'AAEC' } }]
    await expect(secretString(SECRET_ARN, service())).rejects.toThrow('The secret is empty')
  })
})
