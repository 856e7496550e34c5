/** The product's Secrets Manager client, created once per container (shared/crypto/secrets-manager.ts reads through it). */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { clientOptions, quickCall } from './settings.ts'

export const secretsManager = new SecretsManagerClient(clientOptions(quickCall))
