/**
 * The AWS SDK's own DynamoDB clients, pointed where the product's calls go (config): for the local
 * tooling, the tests and the benchmarks that read or stage items independently of the product's
 * sender (shared/store/documents.ts). Never bundled into a Lambda.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../shared/config.ts'

export const dynamo = new DynamoDBClient({
  region: config.region,
  ...(config.dynamodbEndpoint
    ? { endpoint: config.dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {}),
})

export const doc = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
})

export const tableName = config.tableName
