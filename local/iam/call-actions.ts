/**
 * What IAM authorizes for one SDK call: the action(s) and the resource ARN(s), as the service
 * checks them (the Service Authorization Reference's table of each service). A transaction is
 * authorized item by item (each Put, Update, Delete or ConditionCheck), a batch table by table, a
 * multipart upload as s3:PutObject, a HEAD as s3:GetObject. A command this file does not know is
 * an error, never a silent pass: a new call gets its row here first.
 */

/** The service of a call, as the SDK client names it (its service id, lower case). */
export type CallService = 'dynamodb' | 'sqs' | 's3' | 'secretsmanager' | 'sesv2'

/** Where the local ARNs point: the stack's region and a fixed local account. */
export interface ArnScope {
  readonly region: string
  readonly account: string
}

/** One authorization IAM makes for a call. */
export interface Authorization {
  readonly action: string
  readonly resource: string
  /**
   * What the function must be given in its environment to find the resource (a table or bucket
   * name, a queue's name, a secret ARN); undefined where the call names nothing of the stack's.
   */
  readonly named?: string
}

type Input = Readonly<Record<string, unknown>>

const str = (input: Input, field: string): string => {
  const v = input[field]
  if (typeof v !== 'string' || v === '') throw new Error(`The call has no ${field}`)
  return v
}

const tableArn = (s: ArnScope, table: string) => `arn:aws:dynamodb:${s.region}:${s.account}:table/${table}`

const tableAction = (s: ArnScope, action: string, input: Input): Authorization => {
  const table = str(input, 'TableName')
  const index = input.IndexName
  return {
    action: `dynamodb:${action}`,
    resource: typeof index === 'string' ? `${tableArn(s, table)}/index/${index}` : tableArn(s, table),
    named: table,
  }
}

/** Each table a batch names, under the batch's own action. */
const perTable = (s: ArnScope, action: string, input: Input): Authorization[] =>
  Object.keys((input.RequestItems ?? {}) as Record<string, unknown>).map((table) => ({
    action: `dynamodb:${action}`,
    resource: tableArn(s, table),
    named: table,
  }))

/** TransactWriteItems and TransactGetItems: each item's own action on its table. */
const transactionItemActions: Readonly<Record<string, string>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
}

function perItem(s: ArnScope, input: Input): Authorization[] {
  const items = (input.TransactItems ?? []) as readonly Record<string, Input>[]
  return items.flatMap((item) =>
    Object.entries(item).map(([kind, part]) => {
      const action = transactionItemActions[kind]
      if (!action) throw new Error(`A transaction item of unknown kind ${kind}`)
      return tableAction(s, action, part)
    }),
  )
}

const tableCommands: Readonly<Record<string, (s: ArnScope, input: Input) => Authorization[]>> = {
  GetItem: (s, i) => [tableAction(s, 'GetItem', i)],
  PutItem: (s, i) => [tableAction(s, 'PutItem', i)],
  UpdateItem: (s, i) => [tableAction(s, 'UpdateItem', i)],
  DeleteItem: (s, i) => [tableAction(s, 'DeleteItem', i)],
  Query: (s, i) => [tableAction(s, 'Query', i)],
  Scan: (s, i) => [tableAction(s, 'Scan', i)],
  DescribeTable: (s, i) => [tableAction(s, 'DescribeTable', i)],
  BatchGetItem: (s, i) => perTable(s, 'BatchGetItem', i),
  BatchWriteItem: (s, i) => perTable(s, 'BatchWriteItem', i),
  TransactWriteItems: perItem,
  TransactGetItems: perItem,
}

/** The queue's name is the last segment of its URL (`.../<account>/<name>`). */
const queueName = (url: string) => url.slice(url.lastIndexOf('/') + 1)

const queueAction = (s: ArnScope, action: string, input: Input): Authorization[] => {
  const name = queueName(str(input, 'QueueUrl'))
  return [{ action: `sqs:${action}`, resource: `arn:aws:sqs:${s.region}:${s.account}:${name}`, named: name }]
}

const queueCommands: Readonly<Record<string, string>> = {
  SendMessage: 'SendMessage',
  SendMessageBatch: 'SendMessage',
  ReceiveMessage: 'ReceiveMessage',
  DeleteMessage: 'DeleteMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibility: 'ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
  GetQueueAttributes: 'GetQueueAttributes',
}

const objectCommands: Readonly<Record<string, string>> = {
  PutObject: 'PutObject',
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
  AbortMultipartUpload: 'AbortMultipartUpload',
  GetObject: 'GetObject',
  HeadObject: 'GetObject',
  DeleteObject: 'DeleteObject',
}

function bucketCall(operation: string, input: Input): Authorization[] | undefined {
  const bucket = str(input, 'Bucket')
  const objectAction = objectCommands[operation]
  if (objectAction) {
    return [
      {
        action: `s3:${objectAction}`,
        resource: `arn:aws:s3:::${bucket}/${str(input, 'Key')}`,
        named: bucket,
      },
    ]
  }
  if (operation === 'ListObjectsV2' || operation === 'ListObjects') {
    return [{ action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}`, named: bucket }]
  }
  return undefined
}

/** SES checks the sending identity (the sender's domain) and the configuration set, if any. */
function sendEmail(s: ArnScope, input: Input): Authorization[] {
  const from = str(input, 'FromEmailAddress')
  const domain = from.slice(from.lastIndexOf('@') + 1).replace(/>$/, '')
  const arn = (resource: string) => `arn:aws:ses:${s.region}:${s.account}:${resource}`
  const set = input.ConfigurationSetName
  return [
    { action: 'ses:SendEmail', resource: arn(`identity/${domain}`) },
    ...(typeof set === 'string'
      ? [{ action: 'ses:SendEmail', resource: arn(`configuration-set/${set}`), named: set }]
      : []),
  ]
}

/**
 * The authorizations of one call.
 * @param operation the command's name without `Command` (`GetItem`, `SendMessage`, ...)
 * @throws Error for a command of the service this file has no row for
 */
export function authorizationsOf(
  service: CallService,
  operation: string,
  input: Input,
  scope: ArnScope,
): Authorization[] {
  let found: Authorization[] | undefined
  if (service === 'dynamodb') found = tableCommands[operation]?.(scope, input)
  else if (service === 'sqs') {
    const action = queueCommands[operation]
    found = action ? queueAction(scope, action, input) : undefined
  } else if (service === 's3') found = bucketCall(operation, input)
  else if (service === 'secretsmanager' && operation === 'GetSecretValue') {
    const id = str(input, 'SecretId')
    found = [{ action: 'secretsmanager:GetSecretValue', resource: id, named: id }]
  } else if (service === 'sesv2' && operation === 'SendEmail') found = sendEmail(scope, input)
  if (!found)
    throw new Error(
      `The local IAM check has no action for ${service} ${operation}: add it to local/iam/call-actions.ts`,
    )
  return found
}
