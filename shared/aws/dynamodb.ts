/**
 * The product's DynamoDB clients, created once per container: the SDK's client with the product's
 * settings (shared/aws/settings.ts), and the document client over it that shared/store/core/db.ts sends
 * every call through. Only shared/store reads them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { clientOptions, quickCall } from './settings.ts'

export const dynamoDb = new DynamoDBClient(clientOptions(quickCall))

/**
 * Items in plain values: an undefined attribute is left out (the store's items omit what is empty),
 * and any object but a plain one, an array, a Set or bytes is refused rather than guessed at.
 * Numbers come back as numbers (a larger integer than 2^53 as a bigint).
 */
export const documents = DynamoDBDocumentClient.from(dynamoDb, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
})
