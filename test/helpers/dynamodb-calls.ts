/**
 * Holds back or watches the product's AWS calls: a middleware on one of the product's clients
 * (shared/aws/) at the SDK's build step, so it sees each call once, its retries together, with the
 * operation's name and its input as the service receives it (for DynamoDB, attribute values). To
 * stage a race right before a write, or to count what a request sends (tests and benchmarks).
 * Each wrap is taken off by the function it returns. Faults are injected with aws-sdk-client-mock.
 */
import type { MiddlewareStack } from '@smithy/types'
import { dynamoDb } from '../../shared/aws/dynamodb.ts'
import { sqs } from '../../shared/aws/sqs.ts'

/** One call: the operation (`GetItem`, `SendMessage`, ...) and its input; its answer. */
export type AwsCall = (
  operation: string,
  input: Readonly<Record<string, unknown>>,
) => Promise<Record<string, unknown> | undefined>

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any client's stack, whatever its input and output types
type AnyStack = MiddlewareStack<any, any>

let wraps = 0

/** Wraps every call `client` makes from now on. */
export function wrapCalls(
  client: { middlewareStack: AnyStack },
  wrap: (next: AwsCall) => AwsCall,
): () => void {
  const name = `watch-${++wraps}`
  client.middlewareStack.add(
    (next, context) => async (args) => {
      let answer: Awaited<ReturnType<typeof next>> | undefined
      const send: AwsCall = async () => {
        answer = await next(args)
        return answer.output as Record<string, unknown>
      }
      const operation = String(context.commandName ?? '').replace(/Command$/, '')
      await wrap(send)(operation, args.input as Record<string, unknown>)
      if (!answer) throw new Error(`The wrap ${name} did not send the ${operation} call`)
      return answer
    },
    { step: 'build', name },
  )
  return () => {
    client.middlewareStack.remove(name)
  }
}

export const wrapDynamoDbCalls = (wrap: (next: AwsCall) => AwsCall) => wrapCalls(dynamoDb, wrap)

export const wrapQueueCalls = (wrap: (next: AwsCall) => AwsCall) => wrapCalls(sqs, wrap)

/** Runs `change` once, right before the next transaction is sent. */
export function beforeNextTransaction(change: () => Promise<void>): () => void {
  let armed = true
  return wrapDynamoDbCalls((next) => async (operation, input) => {
    if (armed && operation === 'TransactWriteItems') {
      armed = false
      await change()
    }
    return next(operation, input)
  })
}
