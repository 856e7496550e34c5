/**
 * Which function of the stack the local stack is running at this moment: the gateway runs each
 * request as its route group's function, the pollers and schedules each batch or run as their
 * worker's. Everything the invocation starts (awaited or not) runs as that function too, as it
 * would in the function's own container; the local IAM check reads it for every AWS call.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

const invocation = new AsyncLocalStorage<string>()

/** Runs `body` as the function `name` (a route group, `outbox-relay`, `webhooks-worker`, ...). */
export function runAs<T>(name: string, body: () => T): T {
  return invocation.run(name, body)
}

/** A handler that always runs as the function `name`. */
export function asFunction<A extends unknown[], R>(
  name: string,
  handler: (...args: A) => R,
): (...args: A) => R {
  return (...args) => invocation.run(name, () => handler(...args))
}

/** The function running now; undefined outside any invocation (the stack's own setup, the CLI, tests). */
export const activeFunction = (): string | undefined => invocation.getStore()
