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

export const doc = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
})

export const tableName = config.tableName
