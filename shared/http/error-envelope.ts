/** Registered last so its onError runs first: every thrown error becomes the error envelope. */
import { toErrorResult } from './errors.ts'
import type { MiddyRequest } from './context.ts'

export function errorEnvelope() {
  return {
    onError: function errorEnvelopeOnError(request: MiddyRequest): void {
      request.response = toErrorResult(request.error).result
    },
  }
}
