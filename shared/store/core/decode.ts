/**
 * One decoder per stored entity: a valibot schema of the item, checked when it is read, so a
 * malformed item fails loudly (naming the entity and its key) instead of flowing on as `undefined`.
 */
import * as v from 'valibot'
import type { Item } from './db.ts'
import { MalformedItem } from './store-errors.ts'

export type ItemSchema = v.GenericSchema<unknown, unknown>

/** @throws MalformedItem naming the entity, the key and the first problem's path */
export function decodeItem<S extends ItemSchema>(entity: string, schema: S, item: Item): v.InferOutput<S> {
  const result = v.safeParse(schema, item)
  if (result.success) return result.output
  const issue = result.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '(item)'
  // The expected type only: valibot's message quotes the value received, which may be personal data.
  throw new MalformedItem(
    entity,
    { pk: item.pk, sk: item.sk },
    `${path}: expected ${issue.expected ?? issue.type}`,
  )
}

/** Stored optional attributes are absent or null in older items: both read as null. */
export const nullable = <S extends ItemSchema>(schema: S) =>
  v.optional(v.nullable(schema), null) as unknown as v.GenericSchema<unknown, v.InferOutput<S> | null>

/**
 * The write side of `nullable` and `withDefault`: a null, or a value the caller calls empty (false,
 * 0, '', [], {}), is left out of the item (undefined is not marshalled), and the decoder reads its
 * absence back as that value. An attribute with nothing to say costs its name in the item and in
 * every ALL-projected index entry of it (decision 0014, addenda); a change that empties one must
 * REMOVE it, or rewrite the item whole.
 */
export const unlessEmpty = <T>(value: T | null, empty = false): T | undefined =>
  value === null || empty ? undefined : value

/** An attribute older items lack, read with its default. */
export const withDefault = <S extends ItemSchema>(schema: S, fallback: v.InferOutput<S>) =>
  v.optional(schema, fallback as never) as unknown as v.GenericSchema<unknown, v.InferOutput<S>>

/**
 * Items read as `decode` reads them, apart from those that do not: each of those is handed back as
 * its MalformedItem, so a caller reports it without holding up the items behind it.
 */
export function decodeEach<T>(
  items: readonly Item[],
  decode: (item: Item) => T,
): { readable: T[]; unreadable: MalformedItem[] } {
  const readable: T[] = []
  const unreadable: MalformedItem[] = []
  for (const item of items) {
    try {
      readable.push(decode(item))
    } catch (err) {
      if (!(err instanceof MalformedItem)) throw err
      unreadable.push(err)
    }
  }
  return { readable, unreadable }
}
