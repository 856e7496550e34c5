/**
 * The environment that points a process's AWS clients at the embedded stores: the SDK's own
 * `AWS_ENDPOINT_URL_<SERVICE>` settings (what LocalStack users set too), the fixed keys the
 * emulators accept, and a longer time limit for servers that share a busy machine with the tests.
 * The product reads none of this itself: its clients are the SDK's (shared/aws/).
 */
export function embeddedAwsEnvironment(
  dynamoEndpoint: string,
  emulatorEndpoint: string,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: emulatorEndpoint,
    AWS_ENDPOINT_URL_S3: emulatorEndpoint,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LMS_AWS_REQUEST_TIMEOUT_MS: '60000',
  }
}

/** What embeddedAwsEnvironment sets, and a session token that would sign beside the fixed keys. */
export const embeddedAwsSettings: readonly string[] = [
  ...Object.keys(embeddedAwsEnvironment('', '')),
  'AWS_SESSION_TOKEN',
]

/** Points this process at the embedded stores (before anything reads config or makes a client). */
export function pointAtEmbeddedStores(dynamoEndpoint: string, emulatorEndpoint: string): void {
  delete process.env.AWS_SESSION_TOKEN
  Object.assign(process.env, embeddedAwsEnvironment(dynamoEndpoint, emulatorEndpoint))
}
