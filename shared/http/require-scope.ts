/** The route table's scope for this route, checked on every request (403 names the scope). */
import { requireScope as check } from '../domain/actor.ts'
import type { Scope } from '../routes.ts'
import { established, type MiddyRequest } from './context.ts'

export function requireScope(scope: Scope) {
  return {
    before: function requireScopeBefore(request: MiddyRequest): void {
      check(established(request.context.lms.actor, 'The key holder'), scope)
    },
  }
}
