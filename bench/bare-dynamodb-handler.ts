/**
 * The yardstick of the route groups' cold import: a handler that imports only the DynamoDB client
 * and creates it, bundled as they are (lib/bundling.ts). A route group should cost little more to
 * load than the one client almost every group needs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'

const client = new DynamoDBClient({})

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify({ region: typeof client.config.region }),
})
