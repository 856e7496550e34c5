/** The route table's scope for this route, checked on every request (403 names the scope). */
import { requireScope as check } from '../domain/actor.ts'
import type { MiddyRequest } from './context.ts'

export function requireScope() {
  return {
    before: function requireScopeBefore(request: MiddyRequest): void {
      const { route, actor } = request.context.lms
      if (!route || route.scope === null || !actor) return
      check(actor, route.scope)
    },
  }
}
