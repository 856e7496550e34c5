/**
 * A check of how the store reports a transaction's capacity: one tiny Put against 25 tiny Puts in a
 * TransactWriteItems. DynamoDB bills every item of a transaction (two WCU per KB each); if both
 * report the same, the store reports one item's capacity, not the sum, and the WCU of any
 * multi-item transaction in this report are an undercount. The items go to a throw-away partition.
 */
import { randomUUID } from 'node:crypto'
import { TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'

export interface TransactionCapacityCheck {
  readonly oneItemCu: number
  readonly manyItems: number
  readonly manyItemsCu: number
}

async function transactCu(client: DynamoDBClient, table: string, items: number): Promise<number> {
  const run = randomUUID()
  const out = await client.send(
    new TransactWriteItemsCommand({
      TransactItems: Array.from({ length: items }, (_, i) => ({
        Put: { TableName: table, Item: { pk: { S: `BENCH#capacity-check#${run}` }, sk: { S: String(i) } } },
      })),
      ReturnConsumedCapacity: 'TOTAL',
    }),
  )
  return (out.ConsumedCapacity ?? []).reduce((a, c) => a + (c.WriteCapacityUnits ?? c.CapacityUnits ?? 0), 0)
}

export async function checkTransactionCapacity(
  client: DynamoDBClient,
  table: string,
): Promise<TransactionCapacityCheck> {
  const manyItems = 25
  return {
    oneItemCu: await transactCu(client, table, 1),
    manyItems,
    manyItemsCu: await transactCu(client, table, manyItems),
  }
}
