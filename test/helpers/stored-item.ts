/** An item as DynamoDB holds it, read with the SDK's own client, apart from the product's store. */
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { doc, tableName } from '../../local/sdk-clients.ts'
import type { Key } from '../../shared/store/core/keys.ts'

export async function storedItem(key: Key): Promise<Record<string, unknown>> {
  const out = await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))
  if (!out.Item) throw new Error(`no item ${key.pk} / ${key.sk}`)
  return out.Item
}
