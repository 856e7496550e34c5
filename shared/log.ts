/** Structured JSON log lines: ids and outcomes only, never a secret, a key or personal data. */
import { config } from './config.ts'

export function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  if (config.logLevel === 'silent') return
  process.stdout.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
}

/**
 * What a log line says about an error: its name and message (cut short), its cause's name, and
 * the AWS request id of a refused AWS call (the error's or its cause's), for a support case.
 * Never a stack, nor a cause's message: a store's error text can quote what was sent.
 */
export function errorFields(err: unknown): {
  errorName: string
  errorMessage: string
  causeName?: string
  awsRequestId?: string
} {
  if (!(err instanceof Error)) return { errorName: typeof err, errorMessage: 'a non-Error value was thrown' }
  const cause = err.cause instanceof Error ? { causeName: err.cause.name } : {}
  const requestId = awsRequestIdOf(err) ?? awsRequestIdOf(err.cause)
  return {
    errorName: err.name,
    errorMessage: err.message.slice(0, MESSAGE_LIMIT),
    ...cause,
    ...(requestId ? { awsRequestId: requestId } : {}),
  }
}

/** The SDK's errors carry the service's request id in `$metadata`. */
function awsRequestIdOf(err: unknown): string | undefined {
  const id = (err as { $metadata?: { requestId?: unknown } } | undefined)?.$metadata?.requestId
  return typeof id === 'string' && id ? id : undefined
}

const MESSAGE_LIMIT = 300
