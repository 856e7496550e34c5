import { toErrorResult } from '../shared/http/errors.ts'

/** The same mapping as the API: a CLI error reads like the API's error object. */
export function toCliError(err: unknown): Record<string, unknown> {
  const { result, unexpected } = toErrorResult(err)
  if (unexpected) {
    const name = err instanceof Error ? err.name : 'Error'
    const message =
      err instanceof Error && /ECONNREFUSED|connect/i.test(`${err.message} ${String(err.cause)}`)
        ? 'Cannot reach the local stores: is `npm start` running (or LMS_DYNAMODB_PORT set)?'
        : `Internal error (${name})`
    return { code: 500, message }
  }
  const body = JSON.parse(result.body ?? '{}') as { error: Record<string, unknown> }
  return body.error
}
