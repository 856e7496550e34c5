/**
 * Holds back or watches the product's DynamoDB calls (the wrappers of shared/aws/dynamodb-call.ts,
 * the seam every store call goes through): to stage a race right before a write, or to count
 * what a request sends. Each wrap is taken off by the function it returns.
 */
import { dynamoDbWrappers, type DynamoDbCall } from '../../shared/aws/dynamodb-call.ts'

export function wrapDynamoDbCalls(wrap: (next: DynamoDbCall) => DynamoDbCall): () => void {
  dynamoDbWrappers.push(wrap)
  return () => {
    const at = dynamoDbWrappers.indexOf(wrap)
    if (at >= 0) dynamoDbWrappers.splice(at, 1)
  }
}

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
