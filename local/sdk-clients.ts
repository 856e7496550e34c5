/**
 * The product's own DynamoDB clients (shared/aws/dynamodb.ts), for the local tooling, the tests
 * and the benchmarks that read or stage items beside the product's store: one way to call AWS in
 * the repository, pointed where the SDK's `AWS_ENDPOINT_URL_DYNAMODB` says.
 */
import { config } from '../shared/config.ts'

export { documents as doc, dynamoDb as dynamo } from '../shared/aws/dynamodb.ts'

export const tableName = config.tableName
