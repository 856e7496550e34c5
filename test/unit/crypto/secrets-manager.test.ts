/**
 * GetSecretValue through the product's Secrets Manager client, with aws-sdk-client-mock in the
 * service's place: the string is read, a refusal keeps its name and never quotes a secret, an
 * empty secret is refused, and a container keeps a secret for a few minutes, then reads it again
 * (the clock is the test's own).
 */
import {
  GetSecretValueCommand,
  InternalServiceError,
  ResourceNotFoundException,
} from '@aws-sdk/client-secrets-manager'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { secretsManager } from '../../../shared/aws/secrets-manager.ts'
import { refreshing, secretString } from '../../../shared/crypto/secrets-manager.ts'

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:lms/encryption-AbCdEf'

const sm = mockClient(secretsManager)
beforeEach(() => sm.reset())
afterAll(() => sm.restore())

describe('Secrets: GetSecretValue', () => {
  it('reads the string of the secret asked for', async () => {
    sm.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({
      ARN: SECRET_ARN,
      SecretString: 'the-secret',
    })
    expect(await secretString(SECRET_ARN)).toBe('the-secret')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1)
  })

  it('a refusal keeps its name', async () => {
    sm.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        $metadata: {},
        message: "Secrets Manager can't find the specified secret.",
      }),
    )
    await expect(secretString(SECRET_ARN)).rejects.toMatchObject({ name: 'ResourceNotFoundException' })
  })

  it('a secret without a string value is refused', async () => {
    sm.on(GetSecretValueCommand).resolves({ ARN: SECRET_ARN, SecretBinary: new Uint8Array([0, 1, 2]) })
    await expect(secretString(SECRET_ARN)).rejects.toThrow('The secret is empty')
  })

  it('a failed first read is tried again by the next caller', async () => {
    // Prepare
    sm.on(GetSecretValueCommand)
      .rejectsOnce(
        new InternalServiceError({ $metadata: {}, message: 'An error occurred on the server side.' }),
      )
      .resolves({ SecretString: 'the-secret' })
    const secret = refreshing(() => secretString(SECRET_ARN), { maxAgeMs: 300_000 })

    // Act and assess
    await expect(secret()).rejects.toMatchObject({ name: 'InternalServiceError' })
    expect(await secret()).toBe('the-secret')
    expect(await secret()).toBe('the-secret')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2)
  })
})

describe('Secrets: the cache that refreshes', () => {
  const minutes = (n: number) => n * 60_000
  let clock = 0
  const now = () => clock
  beforeEach(() => (clock = 1_000_000))

  it('keeps a secret for its age limit, then reads the rotated value', async () => {
    // Prepare
    sm.on(GetSecretValueCommand).resolvesOnce({ SecretString: 'first' }).resolves({ SecretString: 'rotated' })
    const secret = refreshing(() => secretString(SECRET_ARN), { maxAgeMs: minutes(5), now })

    // Act and assess
    expect(await secret()).toBe('first')
    clock += minutes(5) - 1
    expect(await secret()).toBe('first')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1)
    clock += 1
    expect(await secret()).toBe('rotated')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2)
  })

  it('keeps serving what it holds when a refresh fails, and tries again a little later', async () => {
    // Prepare
    sm.on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'held' })
      .rejectsOnce(new InternalServiceError({ $metadata: {}, message: 'down' }))
      .resolves({ SecretString: 'rotated' })
    const secret = refreshing(() => secretString(SECRET_ARN), {
      maxAgeMs: minutes(5),
      minReloadMs: 10_000,
      now,
    })
    expect(await secret()).toBe('held')

    // Act and assess
    clock += minutes(6)
    expect(await secret()).toBe('held')
    clock += 9_999
    expect(await secret()).toBe('held')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2)
    clock += 1
    expect(await secret()).toBe('rotated')
  })

  it('reads again on demand, at most once in the least time between reloads', async () => {
    // Prepare
    sm.on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'first' })
      .resolvesOnce({ SecretString: 'second' })
      .resolves({ SecretString: 'third' })
    const secret = refreshing(() => secretString(SECRET_ARN), {
      maxAgeMs: minutes(5),
      minReloadMs: 10_000,
      now,
    })
    expect(await secret()).toBe('first')

    // Act and assess
    expect(await secret.reload()).toBe('second')
    expect(await secret.reload()).toBe('second')
    expect(await secret()).toBe('second')
    clock += 10_000
    expect(await secret.reload()).toBe('third')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(3)
  })

  it('reads once for callers that ask at the same time', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'the-secret' })
    const secret = refreshing(() => secretString(SECRET_ARN), { maxAgeMs: minutes(5), now })
    expect(await Promise.all([secret(), secret(), secret.reload()])).toEqual([
      'the-secret',
      'the-secret',
      'the-secret',
    ])
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1)
  })
})
