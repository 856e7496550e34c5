/**
 * Reading built DynamoDB expressions in unit tests of the params builders: placeholders put back
 * (`#n0` → the name, `:v0` → the value as JSON, a set as `<<a, b>>`), so a test asserts what a
 * reader of DynamoDB's docs would write instead of placeholder numbering.
 */

interface Placeheld {
  readonly ExpressionAttributeNames?: Record<string, string>
  readonly ExpressionAttributeValues?: Record<string, unknown>
}

type ExpressionPart =
  | 'UpdateExpression'
  | 'ConditionExpression'
  | 'KeyConditionExpression'
  | 'FilterExpression'
  | 'ProjectionExpression'

/** `expression` with the placeholders of `parts` filled in; undefined when there is none. */
export function rendered(expression: string | undefined, parts: Placeheld): string | undefined {
  if (expression === undefined) return undefined
  const names = parts.ExpressionAttributeNames ?? {}
  const values = parts.ExpressionAttributeValues ?? {}
  return expression
    .replace(/#n\d+/g, (n) => names[n] ?? n)
    .replace(/:v\d+/g, (v) => {
      const value = values[v]
      return value instanceof Set ? `<<${[...(value as Set<unknown>)].join(', ')}>>` : JSON.stringify(value)
    })
}

/** One expression of a command input or transaction item, read as a sentence ('' when absent). */
export function readable(
  part: ExpressionPart,
  item: (Placeheld & Partial<Record<ExpressionPart, string>>) | undefined,
): string {
  return rendered(item?.[part], item ?? {}) ?? ''
}
