/**
 * Who signs the product's AWS calls: an emulator's fixed keys locally, else the Lambda's own role
 * through the SDK's default chain (its environment, in a Lambda). One chain per container, shared
 * by every service the container calls.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node'

export const emulatorCredentials = { accessKeyId: 'local', secretAccessKey: 'local' } as const

let chain: ReturnType<typeof defaultProvider> | undefined

export const lambdaCredentials = (): ReturnType<typeof defaultProvider> => (chain ??= defaultProvider())
