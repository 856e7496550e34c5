/**
 * Write capacity as AWS bills it, computed from the items themselves, because DynamoDB Local
 * under-reports transactions (it adds up a transaction's DISTINCT per-item capacity records; see
 * local-capacity.ts). Inside a probe every write the product's sender makes is wrapped: the items it
 * touches are read (strongly consistent, by a client of its own that nothing records) before and
 * after the write, and the write is priced by DynamoDB's published rules:
 *
 * - table: ceil(size / 1 KB) per item, the larger of the item before and after; twice that inside a
 *   TransactWriteItems (every Put, Update, Delete and ConditionCheck); an item a refused write did
 *   not change is not priced (the bench's writes succeed);
 * - each global secondary index, at the standard rate (1 WCU per KB of the index entry: its keys,
 *   the table's keys and the projected attributes, + 100 bytes of overhead as DynamoDB sizes an
 *   index entry):
 *   an entry appearing or disappearing is one write, an entry whose index key changed is two (delete
 *   and put), an entry whose key stayed but whose projected attributes changed is one, and an
 *   entry nothing projected changed in costs nothing.
 *
 * Item size: attribute name bytes + value bytes (strings UTF-8, numbers ~ digits / 2 + 1, booleans
 * and nulls 1, lists and maps 3 + their elements (+ names), sets their elements), as DynamoDB
 * documents it. Concurrent writes to the same item inside one probe (the bulk's parallel
 * transactions all move one course) can mis-size that item by the other writes' changes: a few
 * bytes of counters, never an index key.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb'
import { tableSchema } from '../shared/store/core/table-schema.ts'

type Image = Record<string, AttributeValue>

export interface ModelledWrite {
  readonly op: string
  readonly tableWcu: number
  /** WCU per index name. */
  readonly indexWcu: Readonly<Record<string, number>>
  readonly wcu: number
}

export interface ModelledTotals {
  readonly writes: number
  readonly tableWcu: number
  readonly indexWcu: number
  readonly wcu: number
  readonly byIndex: Readonly<Record<string, number>>
}

const scope = new AsyncLocalStorage<ModelledWrite[]>()
let installed = false

function utf8(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

function numberSize(n: string): number {
  const digits = n.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/e.*$/i, '')
  return Math.ceil(Math.max(1, digits.length) / 2) + 1
}

export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S)
  if (v.N !== undefined) return numberSize(v.N)
  if (v.B !== undefined) return v.B.length
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1
  if (v.SS !== undefined) return v.SS.reduce((a, s) => a + utf8(s), 0)
  if (v.NS !== undefined) return v.NS.reduce((a, s) => a + numberSize(s), 0)
  if (v.BS !== undefined) return v.BS.reduce((a, b) => a + b.length, 0)
  if (v.L !== undefined) return 3 + v.L.reduce((a, x) => a + 1 + valueSize(x), 0)
  if (v.M !== undefined)
    return 3 + Object.entries(v.M).reduce((a, [k, x]) => a + 1 + utf8(k) + valueSize(x), 0)
  return 0
}

export function itemSize(item: Image): number {
  return Object.entries(item).reduce((a, [k, v]) => a + utf8(k) + valueSize(v), 0)
}

const kb = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024))

type Index = (typeof tableSchema.globalIndexes)[number]

/** The attributes of an item an index entry holds, or null when the item is not in the index. */
function entryOf(index: Index, item: Image | undefined): Image | null {
  if (!item || item[index.pk]?.S === undefined || item[index.sk]?.S === undefined) return null
  const projection = index.projection
  const keep = (name: string): boolean =>
    name === tableSchema.partitionKey ||
    name === tableSchema.sortKey ||
    name === index.pk ||
    name === index.sk ||
    projection.type === 'ALL' ||
    (projection.type === 'INCLUDE' && (projection.attributes as readonly string[]).includes(name))
  return Object.fromEntries(Object.entries(item).filter(([k]) => keep(k)))
}

const same = (a: Image, b: Image): boolean => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))
const sorted = (i: Image): [string, AttributeValue][] =>
  Object.entries(i).sort(([a], [b]) => a.localeCompare(b))

/** WCU per index of changing one item from `before` to `after` (either may be absent). */
export function indexWrites(before: Image | undefined, after: Image | undefined): Record<string, number> {
  const out: Record<string, number> = {}
  for (const index of tableSchema.globalIndexes) {
    const a = entryOf(index, before)
    const b = entryOf(index, after)
    const size = (e: Image): number => kb(itemSize(e) + 100)
    let wcu = 0
    if (a && !b) wcu = size(a)
    else if (!a && b) wcu = size(b)
    else if (a && b) {
      const keyMoved = a[index.pk]?.S !== b[index.pk]?.S || a[index.sk]?.S !== b[index.sk]?.S
      if (keyMoved) wcu = size(a) + size(b)
      else if (!same(a, b)) wcu = Math.max(size(a), size(b))
    }
    if (wcu > 0) out[index.name] = wcu
  }
  return out
}

export function tableWrite(
  before: Image | undefined,
  after: Image | undefined,
  transactional: boolean,
): number {
  const bytes = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0)
  return kb(bytes) * (transactional ? 2 : 1)
}

interface Touched {
  readonly key: Image
  readonly transactional: boolean
  /** A ConditionCheck reads the item and changes nothing: table capacity only. */
  readonly check: boolean
}

function touchedBy(op: string, input: Record<string, unknown>): Touched[] {
  const keyOf = (item: Image): Image => {
    const k: Image = {}
    for (const name of [tableSchema.partitionKey, tableSchema.sortKey]) if (item[name]) k[name] = item[name]
    return k
  }
  switch (op) {
    case 'PutItem':
      return [{ key: keyOf(input.Item as Image), transactional: false, check: false }]
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ key: input.Key as Image, transactional: false, check: false }]
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, { Item?: Image; Key?: Image }>[]).map((t) => {
        const [kind, body] = Object.entries(t)[0] ?? ['', {}]
        return {
          key: body.Item ? keyOf(body.Item) : (body.Key ?? {}),
          transactional: true,
          check: kind === 'ConditionCheck',
        }
      })
    case 'BatchWriteItem':
      return Object.values(
        input.RequestItems as Record<
          string,
          { PutRequest?: { Item: Image }; DeleteRequest?: { Key: Image } }[]
        >,
      )
        .flat()
        .map((r) => ({
          key: r.PutRequest ? keyOf(r.PutRequest.Item) : (r.DeleteRequest?.Key ?? {}),
          transactional: false,
          check: false,
        }))
    default:
      return []
  }
}

/** Adds the model to the client's middleware stack, once; outside a probe it prices nothing. */
export async function installCapacityModel(endpoint: string, table: string): Promise<void> {
  if (installed) return
  installed = true
  const reader = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
  const read = async (key: Image): Promise<Image | undefined> =>
    (await reader.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item
  const { wrapDynamoDbCalls } = await import('../test/helpers/dynamodb-calls.ts')
  wrapDynamoDbCalls((next) => async (op, input) => {
    const writes = scope.getStore()
    const touched = writes ? touchedBy(op, input as Record<string, unknown>) : []
    if (!writes || touched.length === 0) return next(op, input)
    const before = await Promise.all(touched.map((t) => read(t.key)))
    const out = await next(op, input)
    const after = await Promise.all(touched.map((t) => read(t.key)))
    let tableWcu = 0
    const indexWcu: Record<string, number> = {}
    touched.forEach((t, i) => {
      const b = before[i]
      const a = after[i]
      if (t.check) {
        tableWcu += tableWrite(b, b, true)
        return
      }
      if (!b && !a) return
      tableWcu += tableWrite(b, a, t.transactional)
      for (const [name, wcu] of Object.entries(indexWrites(b, a)))
        indexWcu[name] = (indexWcu[name] ?? 0) + wcu
    })
    const idx = Object.values(indexWcu).reduce((x, y) => x + y, 0)
    writes.push({ op, tableWcu, indexWcu, wcu: tableWcu + idx })
    return out
  })
}

/** Runs fn and prices every write it sends through an installed client. */
export async function withCapacityModel<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; writes: ModelledWrite[] }> {
  const writes: ModelledWrite[] = []
  const value = await scope.run(writes, fn)
  return { value, writes }
}

export function totalsOf(writes: readonly ModelledWrite[]): ModelledTotals {
  const byIndex: Record<string, number> = {}
  for (const w of writes) for (const [n, x] of Object.entries(w.indexWcu)) byIndex[n] = (byIndex[n] ?? 0) + x
  const tableWcu = writes.reduce((a, w) => a + w.tableWcu, 0)
  const indexWcu = Object.values(byIndex).reduce((a, x) => a + x, 0)
  return { writes: writes.length, tableWcu, indexWcu, wcu: tableWcu + indexWcu, byIndex }
}
