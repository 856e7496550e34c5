/** Lists ordered and paged in memory (groups, job roles: a tenant holds few). */

export interface Page<T> {
  readonly items: T[]
  readonly total: number
}

/** Orders by a string key; ties are broken inside the key (`name#id`), so the order is total. */
export function byKey<T>(key: (t: T) => string, order: 'asc' | 'desc' = 'asc'): (a: T, b: T) => number {
  const dir = order === 'asc' ? 1 : -1
  return (a, b) => {
    const x = key(a)
    const y = key(b)
    return x < y ? -dir : x > y ? dir : 0
  }
}

/** Case-insensitively by name ("Team" before "Team A"), the id breaking ties. */
export function byName(a: { readonly name: string; readonly id: string }, b: typeof a): number {
  const x = a.name.toLowerCase()
  const y = b.name.toLowerCase()
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** `compare` as given for `asc`, reversed for `desc`. */
export function orderedBy<T>(compare: (a: T, b: T) => number, order: 'asc' | 'desc'): (a: T, b: T) => number {
  return order === 'asc' ? compare : (a, b) => compare(b, a)
}

export function pageOf<T>(
  all: readonly T[],
  p: { readonly offset: number; readonly limit: number },
): Page<T> {
  return { items: all.slice(p.offset, p.offset + p.limit), total: all.length }
}
