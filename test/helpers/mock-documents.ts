/**
 * aws-sdk-client-mock in place of the product's document client (shared/aws/dynamodb.ts), for unit
 * tests that inject a fault or a reply without a store. Inputs are in items' terms.
 */
import { mockClient, type AwsStub } from 'aws-sdk-client-mock'
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb'
import { documents } from '../../shared/aws/dynamodb.ts'

export type DocumentsMock = AwsStub<ServiceInputTypes, ServiceOutputTypes, unknown>

export const mockDocuments = (): DocumentsMock => mockClient(documents) as unknown as DocumentsMock

/** The inputs of the calls made with `command`, in order. */
export function inputsOf<I extends ServiceInputTypes>(
  mock: DocumentsMock,
  command: new (input: I) => { readonly input: I },
): I[] {
  return mock.commandCalls(command as never).map((call) => call.args[0].input as I)
}

/** Every call's operation (`GetItem`, `TransactWriteItems`, ...) and input, in order. */
export function allCalls(mock: DocumentsMock): { readonly op: string; readonly input: unknown }[] {
  return mock.calls().map((call) => {
    const command = call.args[0] as {
      readonly input: unknown
      readonly constructor: { readonly name: string }
    }
    return { op: OPERATIONS[command.constructor.name] ?? command.constructor.name, input: command.input }
  })
}

const OPERATIONS: Readonly<Record<string, string>> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactWriteCommand: 'TransactWriteItems',
}
