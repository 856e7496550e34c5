/** JSON bodies through Middy's parser; a request without a body is left alone (GET, DELETE). */
import httpJsonBodyParser from '@middy/http-json-body-parser'
import type { MiddyRequest } from './context.ts'

export function jsonBody() {
  // Any content type is read as JSON: the API speaks nothing else, and a missing header is common.
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true })
  const parse = parser.before as unknown as (request: MiddyRequest) => void
  return {
    before: function jsonBodyBefore(request: MiddyRequest): void {
      const body = request.event.body
      if (body === undefined || body === null || body === '') return
      parse(request)
    },
  }
}
