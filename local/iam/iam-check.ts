/**
 * The local IAM check: every AWS call a function of the local stack makes through the product's
 * clients (shared/aws/) is authorized as IAM would authorize it in AWS, against the grants the
 * synthesized template gives that function, before it is sent. A call the grants do not allow
 * fails as in AWS (AccessDeniedException), its message naming the function, the action and the
 * resource; so does a call on a resource the function's template environment does not name (in
 * AWS it could not have found it). Calls made outside any invocation (the stack's own setup) are
 * not checked.
 */
import type { MiddlewareStack } from '@smithy/types'
import { authorizationsOf, type ArnScope, type Authorization, type CallService } from './call-actions.ts'
import type { FunctionPolicy } from './function-policies.ts'
import { activeFunction } from './invocation.ts'
import { isAllowed } from './policy-evaluator.ts'

const LOCAL_DECISION = "(the local IAM check of the synthesized template's grants)"

/** A call the check refused: what AWS answers for a call that no policy allows. */
export class AccessDeniedError extends Error {
  readonly $fault = 'client'
  readonly $metadata = { httpStatusCode: 403 }

  constructor(
    readonly functionName: string,
    readonly action: string,
    readonly resource: string,
    why: string,
  ) {
    super(
      `Function ${functionName} is not authorized to perform: ${action} on resource: ${resource} because ${why} ${LOCAL_DECISION}`,
    )
    this.name = 'AccessDeniedException'
  }
}

/** One distinct decision: a function, an action, a resource, and whether it was allowed. */
export interface CheckedCall {
  readonly function: string
  readonly action: string
  readonly resource: string
  readonly allowed: boolean
  /** Why it was refused. */
  readonly reason?: string
}

export interface IamCheckOptions {
  readonly policies: ReadonlyMap<string, FunctionPolicy>
  readonly scope: ArnScope
  /** Told of each distinct decision once (the first call that needs it). */
  readonly onChecked?: (call: CheckedCall) => void
}

/** The decision for one authorization of a function: undefined when allowed, else the refusal. */
export type Decide = (fn: string, auth: Authorization) => AccessDeniedError | undefined

/** Values a function can find a resource by: each environment value, and a URL's last segment (a queue's name). */
function namesIn(environment: Readonly<Record<string, string>>): Set<string> {
  const names = new Set<string>()
  for (const v of Object.values(environment)) {
    names.add(v)
    if (/^https?:\/\//.test(v)) names.add(v.slice(v.lastIndexOf('/') + 1))
  }
  return names
}

/** Most distinct decisions remembered (object keys are distinct per file): then it starts over. */
const REMEMBERED = 10_000

export function iamDecider(options: IamCheckOptions): Decide {
  const names = new Map([...options.policies].map(([name, p]) => [name, namesIn(p.environment)]))
  const decided = new Map<string, string | undefined>()
  const refusal = (fn: string, auth: Authorization, why: string | undefined) =>
    why === undefined ? undefined : new AccessDeniedError(fn, auth.action, auth.resource, why)
  return (fn, auth) => {
    const key = `${fn}\n${auth.action}\n${auth.resource}\n${auth.named ?? ''}`
    if (decided.has(key)) return refusal(fn, auth, decided.get(key))
    const policy = options.policies.get(fn)
    let why: string | undefined
    if (!policy) why = `the synthesized template has no function ${fn}`
    else if (!isAllowed(policy.statements, auth.action, auth.resource))
      why = `no identity-based policy of the function's role in the synthesized template allows the ${auth.action} action`
    else if (auth.named !== undefined && !names.get(fn)?.has(auth.named))
      why = `the function's environment in the synthesized template names no ${auth.named}`
    if (decided.size >= REMEMBERED) decided.clear()
    decided.set(key, why)
    options.onChecked?.({
      function: fn,
      action: auth.action,
      resource: auth.resource,
      allowed: why === undefined,
      ...(why === undefined ? {} : { reason: why }),
    })
    return refusal(fn, auth, why)
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any client's stack, whatever its input and output types
type AnyStack = MiddlewareStack<any, any>

/** A client of the product and the service IAM knows it by. */
export interface CheckedClient {
  readonly service: CallService
  readonly client: { middlewareStack: AnyStack }
}

const MIDDLEWARE = 'localIamCheck'

/**
 * Checks every call of these clients made inside an invocation (local/iam/invocation.ts), at the
 * SDK's build step: once per call (retries are later steps), before anything is sent.
 * @returns a function that takes the check off again
 */
export function installIamCheck(clients: readonly CheckedClient[], options: IamCheckOptions): () => void {
  const decide = iamDecider(options)
  for (const { service, client } of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const fn = activeFunction()
        if (fn !== undefined) {
          const operation = String(context.commandName ?? '').replace(/Command$/, '')
          const input = args.input as Record<string, unknown>
          for (const auth of authorizationsOf(service, operation, input, options.scope)) {
            const refusal = decide(fn, auth)
            if (refusal) throw refusal
          }
        }
        return next(args)
      },
      { step: 'build', name: MIDDLEWARE, override: true },
    )
  }
  return () => {
    for (const { client } of clients) client.middlewareStack.remove(MIDDLEWARE)
  }
}
