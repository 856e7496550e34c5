/**
 * One DynamoDB operation through its JSON protocol (`DynamoDB_20120810.<Operation>`), signed and
 * retried by shared/aws/signed-json-call.ts, in place of the SDK's DynamoDB client: that client and
 * the SDK core it brings were about 175 KiB of every Lambda's bundle and most of its cold import
 * (issue 12, docs/decisions/0013-request-path-cost.md). Inputs and outputs are the wire's
 * (attribute values); shared/store/documents.ts translates items.
 *
 * Retried as the SDK's DynamoDB client retried: four attempts in all, on a 5xx, a 429, no answer or
 * a throttling code, with no time limit on an attempt. A refusal keeps the error type as its name
 * (`ConditionalCheckFailedException`, `TransactionCanceledException`) and, from the answer, only
 * what the store reads: the cancellation reasons' codes and the item a failed condition returns.
 */
import type { AttributeMap } from './attribute-values.ts'
import { AwsCallError, callAwsJson, type AwsJsonService, type Refusal } from './signed-json-call.ts'

export type DynamoDbOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'TransactWriteItems'

/** A cancelled transaction's reason for one of its items, as DynamoDB sends it. */
export interface CancellationReason {
  readonly Code?: string
  readonly Message?: string
  readonly Item?: AttributeMap
}

/** A call DynamoDB refused: named by its error type, as the SDK names its exceptions. */
export class DynamoDbRefusal extends AwsCallError {
  /** TransactionCanceledException: one reason per item of the transaction, in its order. */
  readonly CancellationReasons: readonly CancellationReason[] | undefined
  /** ConditionalCheckFailedException with ReturnValuesOnConditionCheckFailure: the item as it stands. */
  readonly Item: AttributeMap | undefined

  constructor(refused: Refusal) {
    super(refused.message, refused.retryable, refused.errorType)
    this.name = refused.errorType
    const { CancellationReasons: reasons, Item: item } = refused.payload
    this.CancellationReasons = Array.isArray(reasons) ? (reasons as CancellationReason[]) : undefined
    this.Item = item !== null && typeof item === 'object' ? (item as AttributeMap) : undefined
  }
}

/** The SDK's throttling codes, DynamoDB's among them: another attempt may pass. */
const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'LimitExceededException',
  'TransactionInProgressException',
  'RequestThrottled',
  'RequestThrottledException',
])

const policy = {
  attempts: 4,
  attemptTimeoutMs: null,
  retryableTypes: RETRYABLE,
  refusal: (refused: Refusal) => new DynamoDbRefusal(refused),
} as const

/** One call as the wire carries it: the operation's input and answer in attribute values. */
export type DynamoDbCall = (
  operation: DynamoDbOperation,
  input: Readonly<Record<string, unknown>>,
) => Promise<Record<string, unknown>>

/**
 * Wrappers around every call (its attempts together), the last added outermost. Empty in the
 * product: the benchmarks count, time and price calls here, and tests hold a call back or refuse it
 * to stage a race or a fault.
 */
export const dynamoDbWrappers: ((next: DynamoDbCall) => DynamoDbCall)[] = []

export async function callDynamoDb(
  service: AwsJsonService,
  operation: DynamoDbOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const call: DynamoDbCall = async (operation, input) => {
    const op = {
      signingName: 'dynamodb',
      jsonVersion: '1.0',
      target: `DynamoDB_20120810.${operation}`,
    } as const
    return (await callAwsJson(service, op, input, policy)) as Record<string, unknown>
  }
  return dynamoDbWrappers.reduce((next, wrap) => wrap(next), call)(operation, input)
}
