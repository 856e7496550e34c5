/**
 * The shared list conventions: page/per_page clamped (page 0 acts as 1, page above 1,000 as 1,000,
 * per_page above 200 as 200), unknown parameters ignored, and sort_by/sort_order checked against
 * the route's list.
 */
import { ValidationError } from '../domain/errors.ts'
import type { ListMeta } from './responses.ts'

export const DEFAULT_PER_PAGE = 50
export const MAX_PER_PAGE = 200
/**
 * An offset page reads every entry before it, so the deepest page bounds a list request's work:
 * at most (MAX_PAGE - 1) × MAX_PER_PAGE = 199,800 entries skipped. It also keeps `meta.page` a
 * safe integer whatever digits the query holds (`1` and 400 zeros reads as Infinity).
 */
export const MAX_PAGE = 1000

export interface Paging {
  readonly page: number
  readonly perPage: number
  readonly offset: number
}

function intParam(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback
  if (!/^-?\d+$/.test(raw.trim())) throw new ValidationError(name, `${name} must be an integer`)
  return Number(raw.trim())
}

export function paging(query: Readonly<Record<string, string | undefined>>): Paging {
  const page = Math.min(MAX_PAGE, Math.max(1, intParam('page', query.page, 1)))
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, intParam('per_page', query.per_page, DEFAULT_PER_PAGE)))
  return { page, perPage, offset: (page - 1) * perPage }
}

export function sorting<S extends string>(
  query: Readonly<Record<string, string | undefined>>,
  allowed: readonly S[],
  defaults: { by: S; order: 'asc' | 'desc' },
): { by: S; order: 'asc' | 'desc' } {
  const by = query.sort_by ?? defaults.by
  if (!(allowed as readonly string[]).includes(by)) {
    throw new ValidationError('sort_by', `sort_by must be one of ${allowed.join(', ')}`)
  }
  const order = query.sort_order ?? defaults.order
  if (order !== 'asc' && order !== 'desc')
    throw new ValidationError('sort_order', 'sort_order must be asc or desc')
  return { by: by as S, order }
}

export function listMeta(p: Paging, total: number): ListMeta {
  return { page: p.page, per_page: p.perPage, total }
}
