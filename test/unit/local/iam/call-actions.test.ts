import { describe, expect, it } from 'vitest'
import { authorizationsOf } from '../../../../local/iam/call-actions.ts'

const scope = { region: 'us-east-1', account: '000000000000' }
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/lms'

describe('Function: authorizationsOf', () => {
  it('authorizes a query of an index on the index ARN, named by the table', () => {
    // Act
    const auths = authorizationsOf('dynamodb', 'Query', { TableName: 'lms', IndexName: 'gsi1' }, scope)

    // Assess
    expect(auths).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/gsi1`, named: 'lms' }])
  })

  it('authorizes a transaction item by item, each with its own action (IAM has no TransactWriteItems action)', () => {
    // Prepare
    const input = {
      TransactItems: [
        { Put: { TableName: 'lms', Item: {} } },
        { Update: { TableName: 'lms', Key: {} } },
        { ConditionCheck: { TableName: 'lms', Key: {} } },
        { Delete: { TableName: 'lms', Key: {} } },
      ],
    }

    // Act
    const actions = authorizationsOf('dynamodb', 'TransactWriteItems', input, scope).map((a) => a.action)

    // Assess
    expect(actions).toEqual([
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
    ])
  })

  it('authorizes a batch on each table it names', () => {
    // Act
    const auths = authorizationsOf('dynamodb', 'BatchGetItem', { RequestItems: { lms: {} } }, scope)

    // Assess
    expect(auths).toEqual([{ action: 'dynamodb:BatchGetItem', resource: table, named: 'lms' }])
  })

  it("authorizes a message on the queue its URL names, by the queue's ARN", () => {
    // Act
    const auths = authorizationsOf(
      'sqs',
      'SendMessage',
      { QueueUrl: 'http://sqs.us-east-1.localhost:4566/000000000000/lms-webhooks', MessageBody: '{}' },
      scope,
    )

    // Assess
    expect(auths).toEqual([
      {
        action: 'sqs:SendMessage',
        resource: 'arn:aws:sqs:us-east-1:000000000000:lms-webhooks',
        named: 'lms-webhooks',
      },
    ])
  })

  it('authorizes every step of a multipart upload as s3:PutObject, its abort as s3:AbortMultipartUpload, a HEAD as s3:GetObject', () => {
    // Prepare
    const object = { Bucket: 'lms-exports', Key: 'tenants/t1/exports/a.csv' }

    // Act
    const actions = [
      'CreateMultipartUpload',
      'UploadPart',
      'CompleteMultipartUpload',
      'AbortMultipartUpload',
      'HeadObject',
    ].map((op) => authorizationsOf('s3', op, object, scope)[0]?.action)

    // Assess
    expect(actions).toEqual([
      's3:PutObject',
      's3:PutObject',
      's3:PutObject',
      's3:AbortMultipartUpload',
      's3:GetObject',
    ])
    expect(authorizationsOf('s3', 'PutObject', object, scope)[0]?.resource).toBe(
      'arn:aws:s3:::lms-exports/tenants/t1/exports/a.csv',
    )
  })

  it('authorizes an e-mail on the sending domain and on the configuration set', () => {
    // Act
    const auths = authorizationsOf(
      'sesv2',
      'SendEmail',
      { FromEmailAddress: 'no-reply@lms.example.org', ConfigurationSetName: 'lms-mail' },
      scope,
    )

    // Assess
    expect(auths.map((a) => a.resource)).toEqual([
      'arn:aws:ses:us-east-1:000000000000:identity/lms.example.org',
      'arn:aws:ses:us-east-1:000000000000:configuration-set/lms-mail',
    ])
  })

  it('refuses to pass a command it has no action for, naming where to add it', () => {
    // Act
    const read = () => authorizationsOf('dynamodb', 'ExecuteStatement', { Statement: 'SELECT' }, scope)

    // Assess
    expect(read).toThrow(/no action for dynamodb ExecuteStatement: add it to local\/iam\/call-actions.ts/)
  })
})
