/**
 * GetSecretValue through the product's Secrets Manager client, with aws-sdk-client-mock in the
 * service's place: the string is read, a refusal keeps its name and never quotes a secret, an
 * empty secret is refused, and a container fetches a secret once (a failed fetch is tried again).
 */
import {
  GetSecretValueCommand,
  InternalServiceError,
  ResourceNotFoundException,
} from '@aws-sdk/client-secrets-manager'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { secretsManager } from '../../../shared/aws/secrets-manager.ts'
import { once, secretString } from '../../../shared/crypto/secrets-manager.ts'

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

  it('is fetched once per container; a failed fetch is tried again by the next caller', async () => {
    sm.on(GetSecretValueCommand)
      .rejectsOnce(
        new InternalServiceError({ $metadata: {}, message: 'An error occurred on the server side.' }),
      )
      .resolves({ SecretString: 'the-secret' })
    const key = once(() => secretString(SECRET_ARN))

    await expect(key()).rejects.toMatchObject({ name: 'InternalServiceError' })
    expect(await key()).toBe('the-secret')
    expect(await key()).toBe('the-secret')
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2)
  })
})
