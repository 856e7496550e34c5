/**
 * Where the product's DynamoDB calls go and who signs them, read once per module load from config:
 * DynamoDB Local (or LocalStack) with fixed keys, or the region's DynamoDB with the Lambda's own
 * credentials (its environment, through the SDK's default chain).
 */
import { awsEndpoint, type AwsJsonService } from '../aws/signed-json-call.ts'
import { config } from '../config.ts'
import { emulatorCredentials, lambdaCredentials } from '../aws/credentials.ts'

export const dynamoDbService: AwsJsonService = config.dynamodbEndpoint
  ? {
      endpoint: config.dynamodbEndpoint,
      region: config.region,
      credentials: emulatorCredentials,
    }
  : {
      endpoint: awsEndpoint('dynamodb', config.region),
      region: config.region,
      credentials: lambdaCredentials(),
    }

export const tableName = config.tableName
