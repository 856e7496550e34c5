/**
 * Each stored type declared once (decision 0035): its fields, each naming the item attribute that
 * holds it, the valibot type it is read with, and when it is left out of the item. Decoding,
 * encoding and the change between two values all come from that one declaration, so a field is no
 * longer written four times (schema, decoder, encoder, update) with names that drift apart.
 *
 * Keys and index attributes stay functions of the value (`keys.ts` composes every key), given to
 * `defineEntity` so an item is always written with them.
 */
import * as v from 'valibot'
import type { Item } from './db.ts'
import { decodeItem, type ItemSchema } from './decode.ts'
import type { Key } from './keys.ts'

/** One field: the attribute that holds it, how it is read, and what is written for a value. */
export interface Field<T> {
  readonly attribute: string
  /** Reads the attribute (absent included) as the field's value. */
  readonly schema: v.GenericSchema<unknown, T>
  /**
   * The attribute's value for `value`; undefined leaves it out of the item. (A method, so a
   * `Field<string>` is a `Field<unknown>` in a declaration's record.)
   */
  write(value: T): unknown
}

export type Fields = Readonly<Record<string, Field<unknown>>>

/** The value a declaration describes: what `decode` returns and `encode` takes. */
export type ValueOf<F extends Fields> = { readonly [K in keyof F]: F[K] extends Field<infer T> ? T : never }

const isEmptyValue = (value: unknown, empty: unknown): boolean =>
  Array.isArray(value)
    ? value.length === 0
    : typeof value === 'object' && value !== null
      ? Object.keys(value).length === 0
      : value === empty

/** Always written; `schema` may give older items' missing attribute a default (`withDefault`). */
export function field<S extends ItemSchema>(attribute: string, schema: S): Field<v.InferOutput<S>> {
  return { attribute, schema: schema as v.GenericSchema<unknown, v.InferOutput<S>>, write: (value) => value }
}

/** Null is not stored: an absent attribute (or a null one, in older items) reads as null. */
export function optionalField<S extends ItemSchema>(
  attribute: string,
  schema: S,
): Field<v.InferOutput<S> | null> {
  const read = v.optional(v.nullable(schema), null) as unknown as v.GenericSchema<
    unknown,
    v.InferOutput<S> | null
  >
  return { attribute, schema: read, write: (value) => (value === null ? undefined : value) }
}

/**
 * A value with nothing to say (`empty`: false, 0, '', an empty list or map) is not stored and reads back
 * as `empty`: an attribute costs its name in the item and in every ALL-projected index entry of it
 * (decision 0014, addenda). A change that empties one removes it (`changeOf`).
 */
export function sparseField<S extends ItemSchema>(
  attribute: string,
  schema: S,
  empty: v.InferOutput<S>,
): Field<v.InferOutput<S>> {
  const read = v.optional(schema, empty as never) as unknown as v.GenericSchema<unknown, v.InferOutput<S>>
  return { attribute, schema: read, write: (value) => (isEmptyValue(value, empty) ? undefined : value) }
}

/**
 * An attribute another writer keeps (a user's group set, ADDed to by the groups store): read with
 * the value, never written from it, so an update of the entity leaves it as it is.
 */
export function readOnlyField<S extends ItemSchema>(attribute: string, schema: S): Field<v.InferOutput<S>> {
  return { attribute, schema: schema as v.GenericSchema<unknown, v.InferOutput<S>>, write: () => undefined }
}

/** A map attribute of its own fields, always written (whole); an older item without it reads as all defaults. */
export function mapField<F extends Fields>(attribute: string, fields: F): Field<ValueOf<F>> {
  const shape = objectOf(fields)
  return { attribute, schema: v.optional(shape, {}) as never, write: (value) => encodeFields(fields, value) }
}

/** A map attribute of its own fields, or null: null is not stored. */
export function optionalMapField<F extends Fields>(attribute: string, fields: F): Field<ValueOf<F> | null> {
  const read = v.optional(v.nullable(objectOf(fields)), null) as unknown as v.GenericSchema<
    unknown,
    ValueOf<F> | null
  >
  return {
    attribute,
    schema: read,
    write: (value) => (value === null ? undefined : encodeFields(fields, value)),
  }
}

/** A list attribute of maps of their own fields, always written (whole); an older item without it reads as empty. */
export function listField<F extends Fields>(attribute: string, fields: F): Field<readonly ValueOf<F>[]> {
  const read = v.optional(v.array(objectOf(fields)), []) as unknown as v.GenericSchema<unknown, ValueOf<F>[]>
  return { attribute, schema: read, write: (list) => list.map((value) => encodeFields(fields, value)) }
}

/** A list of maps of their own fields, not stored while empty (read back as empty). */
export function sparseListField<F extends Fields>(
  attribute: string,
  fields: F,
): Field<readonly ValueOf<F>[]> {
  const list = listField(attribute, fields)
  return { ...list, write: (value) => (value.length === 0 ? undefined : list.write(value)) }
}

/** A map attribute keyed by ids, each a map of its own fields; not stored while empty, read back as `{}`. */
export function recordField<F extends Fields>(
  attribute: string,
  fields: F,
): Field<Readonly<Record<string, ValueOf<F>>>> {
  const read = v.optional(v.record(v.string(), objectOf(fields)), {}) as unknown as v.GenericSchema<
    unknown,
    Record<string, ValueOf<F>>
  >
  const write = (record: Readonly<Record<string, ValueOf<F>>>) => {
    const entries = Object.entries(record)
    if (entries.length === 0) return undefined
    return Object.fromEntries(entries.map(([id, value]) => [id, encodeFields(fields, value)]))
  }
  return { attribute, schema: read, write }
}

/**
 * Reads only `fields` of an item (a projected index entry, or one of several values one item
 * holds), failing as `decode` does, as a malformed `type` item.
 */
export function decoderOf<F extends Fields>(type: string, fields: F): (item: Item) => ValueOf<F> {
  const schema = objectOf(fields)
  return (item) => decodeItem(type, schema, item)
}

/** The item's attributes as an object schema whose output carries the fields' names. */
function objectOf<F extends Fields>(fields: F): v.GenericSchema<unknown, ValueOf<F>> {
  const entries = Object.entries(fields)
  const item = v.object(Object.fromEntries(entries.map(([, f]) => [f.attribute, f.schema])))
  return v.pipe(
    item,
    v.transform((i: Record<string, unknown>) =>
      Object.fromEntries(entries.map(([name, f]) => [name, i[f.attribute]])),
    ),
  ) as unknown as v.GenericSchema<unknown, ValueOf<F>>
}

function encodeFields<F extends Fields, K extends keyof F>(
  fields: F,
  value: Pick<ValueOf<F>, K>,
  only?: readonly K[],
): Item {
  const out: Item = {}
  for (const name of only ?? (Object.keys(fields) as K[])) {
    const f = fields[name] as Field<unknown>
    const written = f.write(value[name])
    if (written !== undefined) out[f.attribute] = written
  }
  return out
}

export interface EntityOptions<V, C> {
  /** The item's key for a value, composed by `keys.ts`. */
  readonly key: (context: C, value: V) => Key
  /** Attributes derived from the value: index keys, search text. Rewritten with every change. */
  readonly derived?: (context: C, value: V) => Item
  /** The name a malformed item is reported with when it is not the type: kinds sharing one reader. */
  readonly reportAs?: string
}

export interface Entity<F extends Fields, C> {
  /** The `type` attribute every item of the entity carries, and the name a malformed item is reported with. */
  readonly type: string
  readonly fields: F
  /** @throws MalformedItem naming the entity, the key and the first problem */
  decode(item: Item): ValueOf<F>
  /** The stored attributes of `value` (all fields, or `only` those), without key, type or derived ones. */
  encode<K extends keyof F = keyof F>(value: Pick<ValueOf<F>, K>, only?: readonly K[]): Item
  /** The whole item: key, type, every field, derived attributes. */
  item(context: C, value: ValueOf<F>): Item
  key(context: C, value: ValueOf<F>): Key
  /** Derived attributes of `value` (none when the declaration has none). */
  derived(context: C, value: ValueOf<F>): Item
  /**
   * What an update must set and remove to go from `before` to `after` over `only` those fields:
   * the attributes that differ, removing those the new value leaves empty.
   */
  changeOf<K extends keyof F = keyof F>(
    before: Pick<ValueOf<F>, K>,
    after: Pick<ValueOf<F>, K>,
    only?: readonly K[],
  ): { readonly set: Record<string, unknown>; readonly remove: string[] }
}

export function defineEntity<F extends Fields, C>(
  type: string,
  fields: F,
  options: EntityOptions<ValueOf<F>, C>,
): Entity<F, C> {
  const schema = objectOf(fields)
  const encode = <K extends keyof F>(value: Pick<ValueOf<F>, K>, only?: readonly K[]) =>
    encodeFields(fields, value, only)
  const derived = (context: C, value: ValueOf<F>) => options.derived?.(context, value) ?? {}
  return {
    type,
    fields,
    decode: (item) => decodeItem(options.reportAs ?? type, schema, item),
    encode,
    key: options.key,
    derived,
    item: (context, value) => ({
      ...options.key(context, value),
      type,
      ...encode(value),
      ...derived(context, value),
    }),
    changeOf<K extends keyof F>(
      before: Pick<ValueOf<F>, K>,
      after: Pick<ValueOf<F>, K>,
      only?: readonly K[],
    ) {
      const set: Record<string, unknown> = {}
      const remove: string[] = []
      for (const name of only ?? (Object.keys(fields) as K[])) {
        const f = fields[name] as Field<unknown>
        const was = f.write(before[name])
        const now = f.write(after[name])
        if (JSON.stringify(was) === JSON.stringify(now)) continue
        if (now === undefined) remove.push(f.attribute)
        else set[f.attribute] = now
      }
      return { set, remove }
    },
  }
}
