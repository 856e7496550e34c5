/**
 * The grants the functions get, each to the actions their calls need (the local IAM check proves
 * it, docs/operations.md): CDK's grant helpers give more (grantReadData adds Scan, DescribeTable
 * and stream reads; grantSendMessages adds GetQueueAttributes and GetQueueUrl; a secret's
 * grantRead adds DescribeSecret), none of which the product calls.
 */
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam'
import type { ITable } from 'aws-cdk-lib/aws-dynamodb'
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager'
import type { IQueue } from 'aws-cdk-lib/aws-sqs'

/** What the store sends (shared/store/db.ts): reads, and for writers single, batch and transactional writes. */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  readWrite: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const

export type TableAccess = keyof typeof tableActions

/** The table and its indexes, for these actions only. */
export const grantTable = (table: ITable, grantee: IGrantable, access: TableAccess): Grant =>
  table.grant(grantee, ...tableActions[access])

/** Scanning the table itself, not its indexes: the migrations function only (lib/migrations-function.ts). */
export const grantTableScan = (table: ITable, grantee: IGrantable): Grant =>
  Grant.addToPrincipal({ grantee, actions: ['dynamodb:Scan'], resourceArns: [table.tableArn] })

/** Sending to the queue, and nothing else on it (shared/queue/sqs.ts only sends). */
export const grantSendMessage = (queue: IQueue, grantee: IGrantable): Grant =>
  queue.grant(grantee, 'sqs:SendMessage')

/** Reading the secret's value (shared/crypto/secrets-manager.ts), not describing it. */
export const grantSecretValue = (secret: ISecret, grantee: IGrantable): Grant =>
  Grant.addToPrincipal({
    grantee,
    actions: ['secretsmanager:GetSecretValue'],
    resourceArns: [secret.secretArn],
  })
