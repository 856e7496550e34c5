/**
 * cmi5 modules and the record store. The LMS launches a unit (its "launched" statement), the unit
 * sends its own statements (forwarded as sent, with our actor), and the LMS says "satisfied" once
 * the module's move-on criteria are met. What a unit sends is validated only as far as forwarding
 * needs: a statement the record store would refuse is refused here first, naming the field.
 */
import * as v from 'valibot'
import { ValidationError } from '../errors.ts'
import { parseOrThrow } from '../validation.ts'

export const CMI5_CATEGORY = {
  objectType: 'Activity',
  id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5',
} as const

export const CMI5_EXTENSIONS = {
  sessionId: 'https://w3id.org/xapi/cmi5/context/extensions/sessionid',
  launchMode: 'https://w3id.org/xapi/cmi5/context/extensions/launchmode',
} as const

/** A unit's statement is small; the cap keeps an outbox item far below DynamoDB's 400 KB. */
export const MAX_STATEMENT_BYTES = 64 * 1024

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const Iri = v.pipe(v.string(), v.url('must be an IRI'))

const UnitStatement = v.looseObject({
  id: v.optional(v.pipe(v.string(), v.regex(UUID, 'must be a UUID'))),
  verb: v.looseObject({ id: Iri }),
  object: v.looseObject({ id: Iri }),
})

/**
 * The statement to forward: the unit's JSON with its actor blanked (ours replaces it when it is
 * sent, in the same place, so the statement goes out as the unit ordered it).
 * @throws ValidationError naming the field (`statement.verb.id`, ...)
 */
export function unitStatement(json: string): Record<string, unknown> {
  if (Buffer.byteLength(json, 'utf8') > MAX_STATEMENT_BYTES) {
    throw new ValidationError('statement', `statement: must be at most ${MAX_STATEMENT_BYTES} bytes`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new ValidationError('statement', 'statement: must be valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError('statement', 'statement: must be a JSON object')
  }
  // Checked by the schema, but forwarded from the parsed JSON: valibot's output reorders the keys.
  parseOrThrow(UnitStatement, parsed, 'statement')
  return { ...(parsed as Record<string, unknown>), actor: null }
}
