/**
 * A secret's text where a rotation rewrites it: a Secrets Manager secret (AWS, the operator's
 * credentials) or a local file (the stack's). A write names the version it was based on and fails
 * if the secret changed since, so two rotations at once cannot drop each other's key.
 */
import { randomUUID, createHash } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import {
  GetSecretValueCommand,
  InvalidParameterException,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager'
import { secretsManager } from '../aws/secrets-manager.ts'
import { ConflictError } from '../domain/errors.ts'

export interface SecretText {
  /** The text, and the version a write must be based on. */
  read(): Promise<{ readonly text: string; readonly version: string }>
  /** @throws ConflictError `secret.changed` when the secret is no longer at version `basedOn` */
  write(text: string, basedOn: string): Promise<void>
}

const changed = () =>
  new ConflictError(
    'secret.changed',
    'The secret changed while it was rotated (another rotation?): run it again',
  )

const fingerprint = (text: string) => createHash('sha256').update(text).digest('hex')

/** A file only its owner reads; written aside and renamed, so a reader never sees half of it. */
export function secretFile(path: string): SecretText {
  return {
    async read() {
      const text = await readFile(path, 'utf8')
      return { text, version: fingerprint(text) }
    },
    async write(text, basedOn) {
      if (fingerprint(await readFile(path, 'utf8')) !== basedOn) throw changed()
      const pending = `${path}.${process.pid}.pending`
      await writeFile(pending, `${text}\n`, { mode: 0o600 })
      await rename(pending, path)
    },
  }
}

/**
 * The new value is put aside (AWSPENDING), then made current only if the version read is current
 * still: UpdateSecretVersionStage refuses to move AWSCURRENT from a version that no longer holds it.
 * Secrets Manager keeps the replaced version as AWSPREVIOUS.
 */
export function secretsManagerSecret(secretArn: string): SecretText {
  return {
    async read() {
      const out = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretArn }))
      if (!out.SecretString || !out.VersionId) throw new Error('The secret is empty')
      return { text: out.SecretString, version: out.VersionId }
    },
    async write(text, basedOn) {
      const versionId = randomUUID()
      await secretsManager.send(
        new PutSecretValueCommand({
          SecretId: secretArn,
          ClientRequestToken: versionId,
          SecretString: text,
          VersionStages: ['AWSPENDING'],
        }),
      )
      try {
        await secretsManager.send(
          new UpdateSecretVersionStageCommand({
            SecretId: secretArn,
            VersionStage: 'AWSCURRENT',
            MoveToVersionId: versionId,
            RemoveFromVersionId: basedOn,
          }),
        )
      } catch (err) {
        if (err instanceof InvalidParameterException) throw changed()
        throw err
      }
    },
  }
}
