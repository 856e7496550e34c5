/**
 * The local IAM check as the local stack runs it (local/start.ts): the product's clients checked
 * against each function's grants in the synthesized template, every distinct decision appended to
 * LMS_IAM_RECORD (a JSON line each, when set: the test run counts them), and every refusal written
 * to stderr whatever the log level, naming the function, the action and the resource.
 */
import { appendFileSync } from 'node:fs'
import { dynamoDb } from '../../shared/aws/dynamodb.ts'
import { s3 } from '../../shared/aws/s3.ts'
import { secretsManager } from '../../shared/aws/secrets-manager.ts'
import { ses } from '../../shared/aws/ses.ts'
import { sqs } from '../../shared/aws/sqs.ts'
import { contentBucketName, exportsBucketName } from '../../shared/store/core/table-schema.ts'
import type { ArnScope } from './call-actions.ts'
import { functionPolicies, type FunctionPolicy, type SynthesizedStack } from './function-policies.ts'
import { installIamCheck, type CheckedCall, type CheckedClient } from './iam-check.ts'

/** The account of every local ARN. */
export const LOCAL_ACCOUNT = '000000000000'

/** The product's clients, by the service IAM knows each by. */
export const productClients: readonly CheckedClient[] = [
  { service: 'dynamodb', client: dynamoDb },
  { service: 'sqs', client: sqs },
  { service: 's3', client: s3 },
  { service: 'secretsmanager', client: secretsManager },
  { service: 'sesv2', client: ses },
]

/** Each function's grants and environment in the local stack's names. */
export function localFunctionPolicies(
  stack: SynthesizedStack,
  scope: ArnScope,
  tableName: string,
): Map<string, FunctionPolicy> {
  return functionPolicies(stack, {
    ...scope,
    tableName,
    // The access-log bucket has no local twin: S3 writes its logs, no function does.
    buckets: { exports: exportsBucketName, content: contentBucketName, accessLogs: 'lms-access-logs' },
  })
}

export interface LocalIamCheckOptions {
  readonly stack: SynthesizedStack
  readonly region: string
  readonly tableName: string
  /** Where each distinct decision is appended as a JSON line; unset, nowhere. */
  readonly recordFile?: string
}

export function startLocalIamCheck(options: LocalIamCheckOptions): () => void {
  const scope = { region: options.region, account: LOCAL_ACCOUNT }
  const onChecked = (call: CheckedCall) => {
    if (options.recordFile) appendFileSync(options.recordFile, `${JSON.stringify(call)}\n`)
    if (!call.allowed) {
      process.stderr.write(
        `${JSON.stringify({ level: 'error', msg: 'local IAM check refused a call', ...call })}\n`,
      )
    }
  }
  return installIamCheck(productClients, {
    policies: localFunctionPolicies(options.stack, scope, options.tableName),
    scope,
    onChecked,
  })
}
