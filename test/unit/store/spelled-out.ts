/**
 * Test helper: an expression of a params builder spelled out with its placeholders replaced
 * (`#n0 = :v0` → `status = "pending"`), so a test reads the condition it asserts.
 */
import type { ExpressionParts } from '../../../shared/store/expression.ts'

export function spelledOut(expression: string | undefined, parts: ExpressionParts): string {
  if (expression === undefined) throw new Error('No expression to spell out')
  return expression
    .replace(/#n\d+/g, (p) => parts.ExpressionAttributeNames?.[p] ?? p)
    .replace(/:v\d+/g, (p) => JSON.stringify(parts.ExpressionAttributeValues?.[p]))
}
