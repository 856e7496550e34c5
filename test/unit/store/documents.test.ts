/**
 * The product's DynamoDB sender (shared/store/documents.ts over shared/aws/dynamodb-call.ts)
 * against a local server, beside the SDK's document client as the independent reference: each
 * operation's request is the one the document client sends (target, body) and its signature
 * verifies for dynamodb in the region; each answer is translated back as the document client
 * translates it; refusals keep DynamoDB's error type and reasons, and only what may pass is tried
 * again.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { DynamoDbRefusal } from '../../../shared/aws/dynamodb-call.ts'
import type { AwsJsonService } from '../../../shared/aws/signed-json-call.ts'
import { sendDocuments, type DocumentOperations } from '../../../shared/store/documents.ts'
import { startFakeAws } from '../../helpers/fake-aws.ts'
import { verifies } from '../../helpers/sigv4.ts'

const REGION = 'eu-west-1'
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 't-1',
}

const fake = await startFakeAws('application/x-amz-json-1.0', () => ({ status: 200, body: {} }))
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const service: AwsJsonService = {
  endpoint: fake.endpoint,
  region: REGION,
  credentials: async () => credentials,
}
const sdk = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: REGION, endpoint: fake.endpoint, credentials, maxAttempts: 1 }),
  { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
)

/** An item with every kind of value the product stores, undefined ones included. */
const item = {
  pk: 'T#1',
  sk: 'USER#u-1',
  name: 'Zoë',
  empty: '',
  count: 42,
  ratio: -0.125,
  big: 9007199254740993n,
  active: true,
  gone: null,
  skipped: undefined,
  group_ids: new Set(['g-1', 'g-2']),
  levels: new Set([1, 2]),
  bytes: new Uint8Array([0, 1, 254, 255]),
  list: ['a', 1, undefined, { deep: [true, null] }],
  map: { a: { b: 'c', d: undefined }, e: [] },
}

/** Each operation's input, sent once by the product's sender and once by the document client. */
const inputs: { [O in keyof DocumentOperations]: DocumentOperations[O][0] } = {
  GetItem: { TableName: 't', Key: { pk: 'T#1', sk: 'USER#u-1' }, ConsistentRead: true },
  PutItem: { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
  UpdateItem: {
    TableName: 't',
    Key: { pk: 'T#1', sk: 'C' },
    UpdateExpression: 'ADD #n :one, group_ids :g SET #m = :m',
    ExpressionAttributeNames: { '#n': 'n', '#m': 'm' },
    ExpressionAttributeValues: { ':one': 1, ':g': new Set(['g-3']), ':m': { x: [1, 'y'] }, ':u': undefined },
    ReturnValues: 'ALL_NEW',
  },
  DeleteItem: {
    TableName: 't',
    Key: { pk: 'T#1', sk: 'S' },
    ConditionExpression: 'n = :n',
    ExpressionAttributeValues: { ':n': 'x' },
  },
  Query: {
    TableName: 't',
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p AND gsi1sk > :s',
    ExpressionAttributeValues: { ':p': 'T#1#USERS', ':s': '2026' },
    ExclusiveStartKey: { pk: 'T#1', sk: 'USER#u-1', gsi1pk: 'T#1#USERS', gsi1sk: '2026#u-1' },
    Limit: 10,
    ScanIndexForward: false,
  },
  BatchGetItem: {
    RequestItems: {
      t: {
        Keys: [
          { pk: 'T#1', sk: 'A' },
          { pk: 'T#1', sk: 'B' },
        ],
        ProjectionExpression: 'pk',
      },
    },
  },
  BatchWriteItem: {
    RequestItems: { t: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: { pk: 'T#1', sk: 'B' } } }] },
  },
  TransactWriteItems: {
    TransactItems: [
      { Put: { TableName: 't', Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          TableName: 't',
          Key: { pk: 'T#1', sk: 'C' },
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      { Delete: { TableName: 't', Key: { pk: 'T#1', sk: 'D' } } },
      {
        ConditionCheck: {
          TableName: 't',
          Key: { pk: 'T#1', sk: 'E' },
          ConditionExpression: 'is_active = :t',
          ExpressionAttributeValues: { ':t': true },
        },
      },
    ],
    ReturnConsumedCapacity: 'TOTAL',
  },
}

/** The document client's own command for an operation. */
function sentByTheSdk(op: keyof DocumentOperations): Promise<unknown> {
  switch (op) {
    case 'GetItem':
      return sdk.send(new GetCommand(inputs.GetItem))
    case 'PutItem':
      return sdk.send(new PutCommand(inputs.PutItem))
    case 'UpdateItem':
      return sdk.send(new UpdateCommand(inputs.UpdateItem))
    case 'DeleteItem':
      return sdk.send(new DeleteCommand(inputs.DeleteItem))
    case 'Query':
      return sdk.send(new QueryCommand(inputs.Query))
    case 'BatchGetItem':
      return sdk.send(new BatchGetCommand(inputs.BatchGetItem))
    case 'BatchWriteItem':
      return sdk.send(new BatchWriteCommand(inputs.BatchWriteItem))
    case 'TransactWriteItems':
      return sdk.send(new TransactWriteCommand(inputs.TransactWriteItems))
  }
}

const operations = Object.keys(inputs) as (keyof DocumentOperations)[]

describe('The DynamoDB sender, beside the SDK document client', () => {
  it.each(operations)('sends %s as the document client does, signed for dynamodb', async (op) => {
    await sendDocuments(service, op, inputs[op] as never)
    await sentByTheSdk(op)

    const [ours, theirs] = fake.received
    if (!ours || !theirs) throw new Error('expected two requests')
    expect(ours.headers['x-amz-target']).toBe(`DynamoDB_20120810.${op}`)
    expect(ours.headers['x-amz-target']).toBe(theirs.headers['x-amz-target'])
    expect(ours.headers['content-type']).toBe(theirs.headers['content-type'])
    // A transaction's idempotency token is new in each (the same through its retries).
    const body = (r: { body: string }) => {
      const { ClientRequestToken: token, ...rest } = JSON.parse(r.body) as Record<string, unknown>
      return { ...rest, token: typeof token === 'string' && /^[0-9a-f-]{36}$/.test(token) }
    }
    expect(body(ours)).toEqual(body(theirs))
    expect(body(ours).token).toBe(op === 'TransactWriteItems')
    expect(await verifies(ours, credentials)).toEqual({ service: 'dynamodb', region: REGION, ok: true })
  })

  it('translates answers as the document client does: items, keys, batches and unprocessed requests', async () => {
    // The item as the wire carries it (the request above shows it is the document client's).
    await sendDocuments(service, 'PutItem', { TableName: 't', Item: item })
    const wireItem = (JSON.parse(fake.received[0]?.body ?? '{}') as { Item: Record<string, unknown> }).Item
    const answers: [keyof DocumentOperations, Record<string, unknown>, () => Promise<unknown>][] = [
      [
        'Query',
        {
          Items: [wireItem, wireItem],
          Count: 2,
          ScannedCount: 2,
          LastEvaluatedKey: { pk: { S: 'T#1' }, sk: { S: 'X' } },
        },
        () =>
          sdk.send(
            new QueryCommand({
              TableName: 't',
              KeyConditionExpression: 'pk = :p',
              ExpressionAttributeValues: { ':p': 'T#1' },
            }),
          ),
      ],
      [
        'GetItem',
        { Item: wireItem },
        () => sdk.send(new GetCommand({ TableName: 't', Key: { pk: 'T#1', sk: 'A' } })),
      ],
      [
        'UpdateItem',
        { Attributes: wireItem },
        () =>
          sdk.send(
            new UpdateCommand({
              TableName: 't',
              Key: { pk: 'T#1', sk: 'A' },
              UpdateExpression: 'SET a = :a',
              ExpressionAttributeValues: { ':a': 1 },
            }),
          ),
      ],
      [
        'BatchGetItem',
        {
          Responses: { t: [wireItem] },
          UnprocessedKeys: { t: { Keys: [{ pk: { S: 'T#1' }, sk: { S: 'B' } }] } },
        },
        () => sdk.send(new BatchGetCommand({ RequestItems: { t: { Keys: [{ pk: 'T#1', sk: 'A' }] } } })),
      ],
      [
        'BatchWriteItem',
        {
          UnprocessedItems: {
            t: [
              { PutRequest: { Item: wireItem } },
              { DeleteRequest: { Key: { pk: { S: 'T#1' }, sk: { S: 'B' } } } },
            ],
          },
        },
        () =>
          sdk.send(
            new BatchWriteCommand({
              RequestItems: { t: [{ DeleteRequest: { Key: { pk: 'T#1', sk: 'A' } } }] },
            }),
          ),
      ],
    ]
    for (const [op, answer, theirs] of answers) {
      fake.replies = [
        { status: 200, body: answer },
        { status: 200, body: answer },
      ]
      // The answer is scripted: what is asked does not matter to it.
      const ours = await sendDocuments(service, op, { TableName: 't' } as never)
      const reference = { ...((await theirs()) as Record<string, unknown>) }
      delete reference['$metadata']
      expect(ours, op).toEqual(reference)
    }
  })

  it('keeps the type of a refusal as its name, with the cancellation reasons and the refused item, and does not retry it', async () => {
    fake.replies = [
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
          message:
            'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
          CancellationReasons: [
            { Code: 'None' },
            { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
          ],
        },
      },
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: { pk: { S: 'T#1' }, count: { N: '3' } },
        },
      },
    ]
    const cancelled = await sendDocuments(service, 'TransactWriteItems', { TransactItems: [] }).catch(
      (e: unknown) => e,
    )
    const refused = await sendDocuments(service, 'UpdateItem', {
      TableName: 't',
      Key: { pk: 'T#1', sk: 'A' },
    }).catch((e: unknown) => e)

    expect(cancelled).toBeInstanceOf(DynamoDbRefusal)
    expect(cancelled).toMatchObject({
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    })
    expect(refused).toMatchObject({
      name: 'ConditionalCheckFailedException',
      Item: { pk: { S: 'T#1' }, count: { N: '3' } },
    })
    expect((refused as Error).message).toBe('UpdateItem refused: 400 ConditionalCheckFailedException')
    expect(fake.received).toHaveLength(2)
  })

  it('tries throttling and a 5xx again, four attempts in all, then refuses with the last type', async () => {
    const throttled = {
      status: 400,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException' },
    }
    fake.replies = [throttled, { status: 500, body: { __type: 'InternalServerError' } }]
    await sendDocuments(service, 'GetItem', { TableName: 't', Key: { pk: 'T#1', sk: 'A' } })
    expect(fake.received).toHaveLength(3)

    // A transaction tried again carries the same idempotency token.
    fake.reset()
    fake.replies = [throttled]
    await sendDocuments(service, 'TransactWriteItems', { TransactItems: [] })
    const tokens = fake.received.map(
      (r) => (JSON.parse(r.body) as { ClientRequestToken?: string }).ClientRequestToken,
    )
    expect(tokens).toHaveLength(2)
    expect(tokens[0]).toBeTruthy()
    expect(tokens[1]).toBe(tokens[0])

    fake.reset()
    fake.replies = [throttled, throttled, throttled, throttled, throttled]
    const err = await sendDocuments(service, 'GetItem', {
      TableName: 't',
      Key: { pk: 'T#1', sk: 'A' },
    }).catch((e: unknown) => e)
    expect(err).toMatchObject({ name: 'ProvisionedThroughputExceededException' })
    expect(fake.received).toHaveLength(4)
  })
})

describe('Values the sender refuses to guess at', () => {
  it.each([
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 60],
    ['an empty set', new Set()],
    ['a Date', new Date(0)],
  ])('refuses %s before anything is sent', async (_, value) => {
    await expect(
      sendDocuments(service, 'PutItem', { TableName: 't', Item: { pk: 'T#1', sk: 'A', value } }),
    ).rejects.toThrow()
    expect(fake.received).toHaveLength(0)
  })
})
