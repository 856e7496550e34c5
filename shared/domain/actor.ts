import type { Scope } from '../routes.ts'
import { ScopeMissingError } from './errors.ts'

/** Who is acting: an API key with its scopes, or the operator CLI (which holds every scope). */
export interface Actor {
  readonly scopes: ReadonlySet<Scope>
}

export const operator: Actor = { scopes: new Set<Scope>(['read', 'write', 'admin']) }

export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.has(scope)) throw new ScopeMissingError(scope)
}
