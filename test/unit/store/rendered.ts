/**
 * Reads a built expression back with its placeholders filled in (`#n0` → the name, `:v0` → the
 * value as JSON, a set as `<<a, b>>`), so params tests assert what a reader of DynamoDB's docs
 * would write instead of placeholder numbering.
 */
export function rendered(
  expression: string | undefined,
  parts: {
    ExpressionAttributeNames?: Record<string, string>
    ExpressionAttributeValues?: Record<string, unknown>
  },
): string | undefined {
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
