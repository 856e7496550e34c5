/**
 * The hand-signed GetSecretValue (shared/crypto/secrets-manager.ts) against a local server: the
 * request is the one @aws-sdk/client-secrets-manager sends (same operation, body and signed
 * headers), its SigV4 signature verifies for the secretsmanager service, and refusals, retries and
 * empty secrets behave as they did with the SDK's client.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { secretString, type SecretsService } from '../../../shared/crypto/secrets-manager.ts'
import { startFakeAws } from '../../helpers/fake-aws.ts'
import { verifies, type Received } from '../../helpers/sigv4.ts'

const REGION = 'eu-west-1'
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:lms/encryption-AbCdEf`
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 'token-1',
}

const fake = await startFakeAws('application/x-amz-json-1.1', () => ({
  status: 200,
  body: { ARN: SECRET_ARN, SecretString: 'the-secret' },
}))
afterAll(() => fake.close())
beforeEach(() => fake.reset())
const received = fake.received

const service = (): SecretsService => ({
  endpoint: fake.endpoint,
  region: REGION,
  credentials: async () => credentials,
})

describe('GetSecretValue without the Secrets Manager client', () => {
  it('sends what the SDK client sends, signed for secretsmanager in the region, and reads the string', async () => {
    expect(await secretString(SECRET_ARN, service())).toBe('the-secret')
    const sdk = new SecretsManagerClient({
      region: REGION,
      endpoint: fake.endpoint,
      credentials,
      maxAttempts: 1,
    })
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
      expect(await verifies(r, credentials)).toEqual({ service: 'secretsmanager', region: REGION, ok: true })
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
    expect((await verifies({ ...ours, body: JSON.stringify({ SecretId: 'another' }) }, credentials)).ok).toBe(
      false,
    )
  })

  it('a refusal names the error type, never the secret, and is not retried', async () => {
    fake.replies = [
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
    fake.replies = [
      { status: 400, body: { __type: 'com.amazonaws.secretsmanager#ThrottlingException' } },
      { status: 500, body: { __type: 'InternalServiceError' } },
    ]
    expect(await secretString(SECRET_ARN, service())).toBe('the-secret')
    expect(received).toHaveLength(3)

    fake.replies = [500, 500, 500, 500].map((status) => ({
      status,
      body: { __type: 'InternalServiceError' },
    }))
    fake.received.length = 0
    await expect(secretString(SECRET_ARN, service())).rejects.toThrow('500 InternalServiceError')
    expect(received).toHaveLength(3)
  })

  it('a secret without a string value is refused', async () => {
    fake.replies = [{ status: 200, body: { ARN: SECRET_ARN, SecretBinary: 'AAEC' } }]
    await expect(secretString(SECRET_ARN, service())).rejects.toThrow('The secret is empty')
  })
})
