/**
 * The check on a real SDK client (its own middleware stack, a stub answer instead of the network)
 * against grants read from a small template in the synthesized shape.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import { functionPolicies, type SynthesizedStack } from '../../../../local/iam/function-policies.ts'
import { installIamCheck, type CheckedCall } from '../../../../local/iam/iam-check.ts'
import { runAs } from '../../../../local/iam/invocation.ts'

const names = {
  region: 'us-east-1',
  account: '000000000000',
  tableName: 'lms',
  buckets: { exports: 'lms-exports', content: 'lms-content', accessLogs: 'lms-access-logs' },
}
const tableArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/lms'
const tableRef = { Ref: 'Table' }
const tableAtt = { 'Fn::GetAtt': ['Table', 'Arn'] }

/** `reader` may read the table and is told its name; `blind` may read it but is not told its name. */
const stack: SynthesizedStack = {
  functions: { reader: 'ReaderFn', blind: 'BlindFn' },
  buckets: { exports: 'Exports', content: 'Content', accessLogs: 'AccessLogs' },
  template: {
    Resources: {
      Table: { Type: 'AWS::DynamoDB::GlobalTable' },
      Exports: { Type: 'AWS::S3::Bucket' },
      ReaderRole: { Type: 'AWS::IAM::Role' },
      BlindRole: { Type: 'AWS::IAM::Role' },
      ReaderFn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Role: { 'Fn::GetAtt': ['ReaderRole', 'Arn'] },
          Environment: { Variables: { LMS_TABLE_NAME: tableRef } },
        },
      },
      BlindFn: {
        Type: 'AWS::Lambda::Function',
        Properties: { Role: { 'Fn::GetAtt': ['BlindRole', 'Arn'] } },
      },
      ReadPolicy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'ReaderRole' }, { Ref: 'BlindRole' }],
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Allow',
                Action: ['dynamodb:GetItem', 'dynamodb:Query'],
                Resource: [tableAtt, { 'Fn::Join': ['', [tableAtt, '/index/*']] }],
              },
            ],
          },
        },
      },
    },
  },
}

const client = new DynamoDBClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'k', secretAccessKey: 's' },
})
// The answer comes from here: nothing reaches the network.
client.middlewareStack.add(() => async () => ({ output: { $metadata: {} }, response: {} }), {
  step: 'finalizeRequest',
  name: 'stubAnswer',
})

const key = { pk: { S: 'T#1' }, sk: { S: 'T#1' } }
let uninstall: (() => void) | undefined

afterEach(() => {
  uninstall?.()
  uninstall = undefined
})

function check(): CheckedCall[] {
  const checked: CheckedCall[] = []
  uninstall = installIamCheck([{ service: 'dynamodb', client }], {
    policies: functionPolicies(stack, names),
    scope: names,
    onChecked: (c) => checked.push(c),
  })
  return checked
}

describe('Function: functionPolicies', () => {
  it("resolves each function's statements and environment to the local resources", () => {
    // Act
    const policies = functionPolicies(stack, names)

    // Assess
    expect(policies.get('reader')).toEqual({
      name: 'reader',
      statements: [
        { actions: ['dynamodb:GetItem', 'dynamodb:Query'], resources: [tableArn, `${tableArn}/index/*`] },
      ],
      environment: { LMS_TABLE_NAME: 'lms' },
    })
  })
})

describe('Function: installIamCheck', () => {
  it("lets a call through that the function's grants allow on a resource its environment names", async () => {
    // Prepare
    const checked = check()

    // Act
    const sent = runAs('reader', () => client.send(new GetItemCommand({ TableName: 'lms', Key: key })))

    // Assess
    await expect(sent).resolves.toBeDefined()
    expect(checked).toEqual([
      { function: 'reader', action: 'dynamodb:GetItem', resource: tableArn, allowed: true },
    ])
  })

  it('refuses a call the grants do not allow, naming the function, the action and the resource', async () => {
    // Prepare
    check()

    // Act
    const sent = runAs('reader', () => client.send(new PutItemCommand({ TableName: 'lms', Item: key })))

    // Assess
    await expect(sent).rejects.toMatchObject({
      name: 'AccessDeniedException',
      functionName: 'reader',
      action: 'dynamodb:PutItem',
      resource: tableArn,
      message: expect.stringMatching(
        /^Function reader is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table\/lms because no identity-based policy/,
      ) as unknown,
    })
  })

  it("refuses a granted call on a resource the function's environment does not name", async () => {
    // Prepare
    check()

    // Act
    const sent = runAs('blind', () => client.send(new GetItemCommand({ TableName: 'lms', Key: key })))

    // Assess
    await expect(sent).rejects.toThrow(
      /Function blind is not authorized to perform: dynamodb:GetItem on resource: .*table\/lms because the function's environment in the synthesized template names no lms/,
    )
  })

  it('refuses every call of a function the template does not have', async () => {
    // Prepare
    check()

    // Act
    const sent = runAs('ghost', () => client.send(new GetItemCommand({ TableName: 'lms', Key: key })))

    // Assess
    await expect(sent).rejects.toThrow(/the synthesized template has no function ghost/)
  })

  it('reports each distinct decision once, however often it is made', async () => {
    // Prepare
    const checked = check()

    // Act
    for (let i = 0; i < 3; i++) {
      await runAs('reader', () => client.send(new GetItemCommand({ TableName: 'lms', Key: key })))
      await runAs('reader', () => client.send(new PutItemCommand({ TableName: 'lms', Item: key }))).catch(
        () => undefined,
      )
    }

    // Assess
    expect(checked.map((c) => `${c.action} ${c.allowed}`)).toEqual([
      'dynamodb:GetItem true',
      'dynamodb:PutItem false',
    ])
  })

  it('leaves calls made outside any invocation alone (the stack setting itself up)', async () => {
    // Prepare
    const checked = check()

    // Act
    const sent = client.send(new PutItemCommand({ TableName: 'lms', Item: key }))

    // Assess
    await expect(sent).resolves.toBeDefined()
    expect(checked).toEqual([])
  })

  it('keeps the function of every call an invocation starts, awaited or not', async () => {
    // Prepare
    check()

    // Act
    const later = runAs('reader', () =>
      new Promise((r) => setTimeout(r, 0)).then(() =>
        client.send(new PutItemCommand({ TableName: 'lms', Item: key })),
      ),
    )

    // Assess
    await expect(later).rejects.toThrow(/Function reader .* dynamodb:PutItem/)
  })
})
