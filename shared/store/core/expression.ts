/**
 * The one builder of DynamoDB expressions: conditions and updates are composed from attribute names
 * and values, and the builder hands out the `#n`/`:v` placeholders, so no store writes a
 * placeholder map by hand and no value is ever spliced into an expression string.
 */

export interface ExpressionParts {
  ExpressionAttributeNames?: Record<string, string>
  ExpressionAttributeValues?: Record<string, unknown>
}

/** Placeholders for one request: the same attribute name always gets the same `#n`. */
export class Placeholders {
  private readonly names = new Map<string, string>()
  private readonly values: Record<string, unknown> = {}
  private valueCount = 0

  /** `a.b` is a path of two names (a map attribute's key); attribute names here never hold a dot. */
  name(path: string): string {
    return path
      .split('.')
      .map((part) => {
        let placeholder = this.names.get(part)
        if (!placeholder) {
          placeholder = `#n${this.names.size}`
          this.names.set(part, placeholder)
        }
        return placeholder
      })
      .join('.')
  }

  value(v: unknown): string {
    const placeholder = `:v${this.valueCount++}`
    this.values[placeholder] = v
    return placeholder
  }

  /** The maps, leaving out an empty one (DynamoDB refuses empty maps). */
  parts(): ExpressionParts {
    const names = Object.fromEntries([...this.names].map(([name, placeholder]) => [placeholder, name]))
    return {
      ...(this.names.size > 0 ? { ExpressionAttributeNames: names } : {}),
      ...(this.valueCount > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    }
  }
}

/** A condition, rendered against the request's placeholders. */
export type Condition = (p: Placeholders) => string

type Comparison = '=' | '<>' | '<' | '<=' | '>' | '>='

export type AttributeType = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'M' | 'L' | 'SS' | 'NS' | 'BS'

const compare =
  (op: Comparison) =>
  (attr: string, value: unknown): Condition =>
  (p) =>
    `${p.name(attr)} ${op} ${p.value(value)}`

export const cond = {
  /** The item exists (its partition key is set). */
  exists:
    (attr = 'pk'): Condition =>
    (p) =>
      `attribute_exists(${p.name(attr)})`,
  notExists:
    (attr = 'pk'): Condition =>
    (p) =>
      `attribute_not_exists(${p.name(attr)})`,
  eq: compare('='),
  ne: compare('<>'),
  lt: compare('<'),
  le: compare('<='),
  gt: compare('>'),
  ge: compare('>='),
  /** The attribute is one of `values` (at least one). */
  oneOf:
    (attr: string, values: readonly unknown[]): Condition =>
    (p) =>
      `${p.name(attr)} IN (${values.map((v) => p.value(v)).join(', ')})`,
  /** `low <= attr <= high` (both ends included). */
  between:
    (attr: string, low: unknown, high: unknown): Condition =>
    (p) =>
      `${p.name(attr)} BETWEEN ${p.value(low)} AND ${p.value(high)}`,
  beginsWith:
    (attr: string, prefix: string): Condition =>
    (p) =>
      `begins_with(${p.name(attr)}, ${p.value(prefix)})`,
  /** The attribute holds a value of this DynamoDB type (`S` for a string, not `NULL`). */
  hasType:
    (attr: string, type: AttributeType): Condition =>
    (p) =>
      `attribute_type(${p.name(attr)}, ${p.value(type)})`,
  contains:
    (attr: string, value: unknown): Condition =>
    (p) =>
      `contains(${p.name(attr)}, ${p.value(value)})`,
  and:
    (...conditions: readonly Condition[]): Condition =>
    (p) =>
      conditions.length === 1
        ? (conditions[0] as Condition)(p)
        : conditions.map((c) => `(${c(p)})`).join(' AND '),
  or:
    (...conditions: readonly Condition[]): Condition =>
    (p) =>
      conditions.length === 1
        ? (conditions[0] as Condition)(p)
        : conditions.map((c) => `(${c(p)})`).join(' OR '),
  not:
    (condition: Condition): Condition =>
    (p) =>
      `NOT (${condition(p)})`,
}

/** What an update does; attributes absent from every part are left as they are. */
export interface UpdateSpec {
  readonly set?: Readonly<Record<string, unknown>>
  /**
   * Numbers added (negative to subtract), or elements added to a set attribute; zero deltas and
   * empty sets are left out (DynamoDB refuses an empty set).
   */
  readonly add?: Readonly<Record<string, number | ReadonlySet<string>>>
  /** Elements taken out of a set attribute; empty sets are left out. */
  readonly delete?: Readonly<Record<string, ReadonlySet<string>>>
  readonly remove?: readonly string[]
}

/**
 * The SET and REMOVE that take an item from the attributes `before` to those of `after` (both as a
 * writer builds them): what differs is set, what `after` leaves undefined (an empty value the
 * writer does not store, decode.ts `unlessEmpty`) is removed; what is equal is not touched.
 */
export function attributeChange(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): { readonly set: Record<string, unknown>; readonly remove: string[] } {
  const set: Record<string, unknown> = {}
  const remove: string[] = []
  for (const [name, value] of Object.entries(after)) {
    if (JSON.stringify(value) === JSON.stringify(before[name])) continue
    if (value === undefined) remove.push(name)
    else set[name] = value
  }
  return { set, remove }
}

const changesSomething = ([, value]: [string, number | ReadonlySet<string>]) =>
  typeof value === 'number' ? value !== 0 : value.size > 0

export function isEmptyUpdate(spec: UpdateSpec): boolean {
  const adds = Object.entries(spec.add ?? {}).filter(changesSomething)
  const deletes = Object.entries(spec.delete ?? {}).filter(changesSomething)
  return (
    Object.keys(spec.set ?? {}).length === 0 &&
    adds.length === 0 &&
    deletes.length === 0 &&
    (spec.remove ?? []).length === 0
  )
}

export interface UpdateParts extends ExpressionParts {
  UpdateExpression: string
  ConditionExpression?: string
}

/**
 * @example
 * updateExpression({ set: { title: 'New' }, add: { enrollment_count: 1 } }, cond.eq('updated_at', before))
 * // { UpdateExpression: 'SET #n0 = :v0 ADD #n1 :v1', ConditionExpression: '#n2 = :v2', ... }
 */
export function updateExpression(spec: UpdateSpec, condition?: Condition): UpdateParts {
  const p = new Placeholders()
  const clauses: string[] = []
  const sets = Object.entries(spec.set ?? {}).map(([attr, value]) => `${p.name(attr)} = ${p.value(value)}`)
  if (sets.length > 0) clauses.push(`SET ${sets.join(', ')}`)
  const adds = Object.entries(spec.add ?? {})
    .filter(changesSomething)
    .map(([attr, n]) => `${p.name(attr)} ${p.value(n)}`)
  if (adds.length > 0) clauses.push(`ADD ${adds.join(', ')}`)
  const deletes = Object.entries(spec.delete ?? {})
    .filter(changesSomething)
    .map(([attr, elements]) => `${p.name(attr)} ${p.value(elements)}`)
  if (deletes.length > 0) clauses.push(`DELETE ${deletes.join(', ')}`)
  const removes = (spec.remove ?? []).map((attr) => p.name(attr))
  if (removes.length > 0) clauses.push(`REMOVE ${removes.join(', ')}`)
  if (clauses.length === 0) throw new Error('An update must change something')
  const conditionExpression = condition?.(p)
  return {
    UpdateExpression: clauses.join(' '),
    ...(conditionExpression ? { ConditionExpression: conditionExpression } : {}),
    ...p.parts(),
  }
}

export interface ConditionParts extends ExpressionParts {
  ConditionExpression: string
}

export function conditionExpression(condition: Condition): ConditionParts {
  const p = new Placeholders()
  const ConditionExpression = condition(p)
  return { ConditionExpression, ...p.parts() }
}

export interface ProjectionParts {
  ProjectionExpression: string
  ExpressionAttributeNames: Record<string, string>
}

/** The attributes a read returns (`a.b` is a map attribute's key), for GetItem and BatchGetItem. */
export function projectionExpression(attrs: readonly string[]): ProjectionParts {
  const p = new Placeholders()
  const ProjectionExpression = attrs.map((attr) => p.name(attr)).join(', ')
  return { ProjectionExpression, ExpressionAttributeNames: p.parts().ExpressionAttributeNames ?? {} }
}

export interface QueryParts extends ExpressionParts {
  KeyConditionExpression: string
  FilterExpression?: string
  ProjectionExpression?: string
}

/** A Query's key condition, filter and projection, sharing one set of placeholders. */
export function queryExpression(spec: {
  readonly key: Condition
  readonly filter?: Condition
  readonly project?: readonly string[]
}): QueryParts {
  const p = new Placeholders()
  const KeyConditionExpression = spec.key(p)
  const FilterExpression = spec.filter?.(p)
  const ProjectionExpression = spec.project?.map((attr) => p.name(attr)).join(', ')
  return {
    KeyConditionExpression,
    ...(FilterExpression ? { FilterExpression } : {}),
    ...(ProjectionExpression ? { ProjectionExpression } : {}),
    ...p.parts(),
  }
}

/** A Scan's filter (the one scanner is the migration runner: shared/store/migrations/table-scan.ts). */
export function scanExpression(filter: Condition): ExpressionParts & { FilterExpression: string } {
  const p = new Placeholders()
  const FilterExpression = filter(p)
  return { FilterExpression, ...p.parts() }
}
