/** Reading built DynamoDB expressions in unit tests of the params builders. */

type ExpressionPart =
  | 'UpdateExpression'
  | 'ConditionExpression'
  | 'KeyConditionExpression'
  | 'FilterExpression'
  | 'ProjectionExpression'

type Expressed = Partial<Record<ExpressionPart, string>> & {
  readonly ExpressionAttributeNames?: Record<string, string>
  readonly ExpressionAttributeValues?: Record<string, unknown>
}

/**
 * One expression of a command input or transaction item with its placeholders put back, to read
 * it as a sentence: `#n0 = :v0` reads `updated_at = "2026-…"`.
 */
export function readable(part: ExpressionPart, item: Expressed | undefined): string {
  let out = item?.[part] ?? ''
  for (const [p, name] of Object.entries(item?.ExpressionAttributeNames ?? {}))
    out = out.replaceAll(new RegExp(`${p}(?!\\d)`, 'g'), name)
  for (const [p, value] of Object.entries(item?.ExpressionAttributeValues ?? {}))
    out = out.replaceAll(new RegExp(`${p}(?!\\d)`, 'g'), JSON.stringify(value))
  return out
}
