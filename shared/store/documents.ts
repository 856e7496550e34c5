/**
 * DynamoDB calls in items' terms: each operation's items, keys and values translated to attribute
 * values on the way out and back on the way in, as the SDK's document client translated them (the
 * same fields: keys, items, expression values, start and last keys, batch and transaction
 * entries). Refusals are passed on as they come (a failed condition's item stays in attribute
 * values). db.ts is the only caller; tests that inject a fault replace `documents.send`.
 */
import { randomUUID } from 'node:crypto'
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb'
import { fromAttributeMap, toAttributeMap, type AttributeMap } from '../aws/attribute-values.ts'
import { callDynamoDb, type DynamoDbOperation } from '../aws/dynamodb-call.ts'
import type { AwsJsonService } from '../aws/signed-json-call.ts'
import { dynamoDbService } from './clients.ts'

type Out<T> = Omit<T, '$metadata'>

/** Each operation's input and output in items' terms (the document client's shapes, as types only). */
export interface DocumentOperations {
  GetItem: [GetCommandInput, Out<GetCommandOutput>]
  PutItem: [PutCommandInput, Out<PutCommandOutput>]
  UpdateItem: [UpdateCommandInput, Out<UpdateCommandOutput>]
  DeleteItem: [DeleteCommandInput, Out<DeleteCommandOutput>]
  Query: [QueryCommandInput, Out<QueryCommandOutput>]
  BatchGetItem: [BatchGetCommandInput, Out<BatchGetCommandOutput>]
  BatchWriteItem: [BatchWriteCommandInput, Out<BatchWriteCommandOutput>]
  TransactWriteItems: [TransactWriteCommandInput, Out<TransactWriteCommandOutput>]
}

type Loose = Record<string, unknown>

const ITEM_FIELDS = [
  'Key',
  'Item',
  'ExpressionAttributeValues',
  'ExclusiveStartKey',
  'LastEvaluatedKey',
  'Attributes',
]

/** The item-valued fields of one request or answer object, translated by `map`. */
function mapFields(source: Loose, map: (m: Loose) => Loose): Loose {
  const out: Loose = { ...source }
  for (const field of ITEM_FIELDS) {
    const value = source[field]
    if (value !== undefined && value !== null) out[field] = map(value as Loose)
  }
  return out
}

const toWire = (m: Loose): Loose => toAttributeMap(m)
const fromWire = (m: Loose): Loose => fromAttributeMap(m as AttributeMap)

/** Batch write requests (PutRequest.Item, DeleteRequest.Key) per table. */
function mapWriteRequests(byTable: unknown, map: (m: Loose) => Loose): Loose | undefined {
  if (!byTable) return undefined
  const out: Loose = {}
  for (const [table, requests] of Object.entries(byTable as Record<string, Loose[]>)) {
    out[table] = requests.map((r) => {
      const put = r['PutRequest'] as Loose | undefined
      const del = r['DeleteRequest'] as Loose | undefined
      return {
        ...(put ? { PutRequest: mapFields(put, map) } : {}),
        ...(del ? { DeleteRequest: mapFields(del, map) } : {}),
      }
    })
  }
  return out
}

/** Batch get keys per table (Keys, with the table's projection as given). */
function mapKeysAndAttributes(byTable: unknown, map: (m: Loose) => Loose): Loose | undefined {
  if (!byTable) return undefined
  const out: Loose = {}
  for (const [table, entry] of Object.entries(byTable as Record<string, Loose>))
    out[table] = { ...entry, Keys: (entry['Keys'] as Loose[]).map(map) }
  return out
}

function wireInput(op: DynamoDbOperation, input: Loose): Loose {
  switch (op) {
    case 'BatchGetItem':
      return { ...input, RequestItems: mapKeysAndAttributes(input['RequestItems'], toWire) }
    case 'BatchWriteItem':
      return { ...input, RequestItems: mapWriteRequests(input['RequestItems'], toWire) }
    case 'TransactWriteItems':
      return {
        // As the SDK sets it: a retry of a transaction whose answer was lost is then answered as
        // the first, where without it the retry's own conditions would refuse a written change.
        ClientRequestToken: randomUUID(),
        ...input,
        TransactItems: (input['TransactItems'] as Loose[]).map((entry) => {
          const out: Loose = {}
          for (const [kind, request] of Object.entries(entry))
            if (request) out[kind] = mapFields(request as Loose, toWire)
          return out
        }),
      }
    default:
      return mapFields(input, toWire)
  }
}

function documentOutput(op: DynamoDbOperation, output: Loose): Loose {
  switch (op) {
    case 'Query':
      return { ...mapFields(output, fromWire), Items: ((output['Items'] ?? []) as Loose[]).map(fromWire) }
    case 'BatchGetItem': {
      const responses: Loose = {}
      for (const [table, items] of Object.entries((output['Responses'] ?? {}) as Record<string, Loose[]>))
        responses[table] = items.map(fromWire)
      return {
        ...output,
        Responses: responses,
        UnprocessedKeys: mapKeysAndAttributes(output['UnprocessedKeys'], fromWire),
      }
    }
    case 'BatchWriteItem':
      return { ...output, UnprocessedItems: mapWriteRequests(output['UnprocessedItems'], fromWire) }
    default:
      return mapFields(output, fromWire)
  }
}

/** One operation in items' terms, to `service`. */
export async function sendDocuments<O extends keyof DocumentOperations>(
  service: AwsJsonService,
  op: O,
  input: DocumentOperations[O][0],
): Promise<DocumentOperations[O][1]> {
  const output = await callDynamoDb(service, op, wireInput(op, input as Loose))
  return documentOutput(op, output) as DocumentOperations[O][1]
}

/** The one way the product's items reach DynamoDB. A property, so a test can replace it. */
export const documents = {
  send: <O extends keyof DocumentOperations>(op: O, input: DocumentOperations[O][0]) =>
    sendDocuments(dynamoDbService, op, input),
}

/** A Query whose items are left in attribute values (store/export-row-items.ts decodes them itself). */
export async function queryAttributeValues(input: QueryCommandInput): Promise<{
  readonly Items?: AttributeMap[]
  readonly LastEvaluatedKey?: AttributeMap
  readonly ConsumedCapacity?: QueryCommandOutput['ConsumedCapacity']
}> {
  return callDynamoDb(dynamoDbService, 'Query', input as Loose)
}
