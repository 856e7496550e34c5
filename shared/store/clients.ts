/** SDK clients, created once per module load with the endpoint from config (local, LocalStack or AWS). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config.ts'

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' }

export const dynamo = new DynamoDBClient({
  region: config.region,
  ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint, credentials: localCredentials } : {}),
  maxAttempts: 4,
})
// The SDK's logger step copies every response through its sensitive-data filter before handing it
// to the logger, even the no-op one used here: a full second walk of each page of items (a sixth of
// an export's CPU). Calls are logged and counted by db.ts instead.
dynamo.middlewareStack.remove('loggerMiddleware')

export const doc = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
})

export const tableName = config.tableName
