/**
 * JavaScript values to DynamoDB's attribute values and back, in the JSON protocol's form (binary as
 * base64). The same mapping as the SDK's document client with `removeUndefinedValues` (what the
 * product used before it sent its calls itself, docs/decisions/0013-request-path-cost.md): an
 * undefined attribute or list element is left out, a Set of strings or numbers is a string or number
 * set, a number must be finite and safe (a larger integer goes as a bigint), and any other object
 * than a plain one, an array, a Set or bytes is refused rather than guessed at.
 */

/** One attribute value as the JSON protocol carries it: exactly one of these is set. */
export interface AttributeValue {
  S?: string
  N?: string
  B?: string
  BOOL?: boolean
  NULL?: boolean
  SS?: string[]
  NS?: string[]
  BS?: string[]
  L?: AttributeValue[]
  M?: Record<string, AttributeValue>
}

export type AttributeMap = Record<string, AttributeValue>

const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array

function numberAttribute(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString()
  if (!Number.isFinite(value)) throw new Error(`Special numeric value ${value} is not allowed`)
  if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER)
    throw new Error(`Number ${value} is outside the safe integer range: pass a bigint`)
  return String(value)
}

function setAttribute(set: Set<unknown>): AttributeValue {
  const members = [...set].filter((v) => v !== undefined)
  const first = members[0]
  if (first === undefined) throw new Error('Pass a non-empty set')
  if (typeof first === 'string') return { SS: members.map((v) => String(v)) }
  if (typeof first === 'number' || typeof first === 'bigint')
    return { NS: members.map((v) => numberAttribute(v as number | bigint)) }
  if (isBytes(first)) return { BS: members.map((v) => Buffer.from(v as Uint8Array).toString('base64')) }
  throw new Error('Only string, number or binary sets are allowed')
}

export function toAttributeValue(value: unknown): AttributeValue {
  if (value === null) return { NULL: true }
  switch (typeof value) {
    case 'string':
      return { S: value }
    case 'number':
    case 'bigint':
      return { N: numberAttribute(value) }
    case 'boolean':
      return { BOOL: value }
    case 'object':
      if (Array.isArray(value))
        return { L: value.filter((v) => v !== undefined && typeof v !== 'function').map(toAttributeValue) }
      if (value instanceof Set) return setAttribute(value)
      if (isBytes(value)) return { B: Buffer.from(value).toString('base64') }
      if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)
        return { M: toAttributeMap(value as Record<string, unknown>) }
      break
  }
  throw new Error(`Unsupported type passed: ${Object.prototype.toString.call(value)}`)
}

/** A plain object as an item or key: undefined attributes are left out. */
export function toAttributeMap(item: Readonly<Record<string, unknown>>): AttributeMap {
  const out: AttributeMap = {}
  for (const key in item) {
    const value = item[key]
    if (value !== undefined && typeof value !== 'function') out[key] = toAttributeValue(value)
  }
  return out
}

function nativeNumber(text: string): number | bigint {
  const n = Number(text)
  return (n > Number.MAX_SAFE_INTEGER || n < Number.MIN_SAFE_INTEGER) && Number.isFinite(n) ? BigInt(text) : n
}

export function fromAttributeValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S
  if (value.N !== undefined) return nativeNumber(value.N)
  if (value.BOOL !== undefined) return value.BOOL
  if (value.NULL !== undefined) return null
  if (value.M !== undefined) return fromAttributeMap(value.M)
  if (value.L !== undefined) return value.L.map(fromAttributeValue)
  if (value.SS !== undefined) return new Set(value.SS)
  if (value.NS !== undefined) return new Set(value.NS.map(nativeNumber))
  if (value.B !== undefined) return new Uint8Array(Buffer.from(value.B, 'base64'))
  if (value.BS !== undefined) return new Set(value.BS.map((b) => new Uint8Array(Buffer.from(b, 'base64'))))
  throw new Error(`Unsupported attribute value: ${Object.keys(value).join(', ')}`)
}

export function fromAttributeMap(item: Readonly<AttributeMap>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key in item) {
    const value = item[key]
    if (value !== undefined) out[key] = fromAttributeValue(value)
  }
  return out
}
