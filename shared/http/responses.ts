/** The success side of the envelope: `{data, meta, error: null}`. */
import type { HttpResult } from './context.ts'

export interface ListMeta {
  readonly page: number
  readonly per_page: number
  readonly total: number
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' }

export function envelope(statusCode: number, data: unknown, meta: unknown = null): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS }, body: JSON.stringify({ data, meta, error: null }) }
}

export const ok = (data: unknown, meta: ListMeta | null = null): HttpResult => envelope(200, data, meta)
export const created = (data: unknown): HttpResult => envelope(201, data)
export const noContent = (): HttpResult => ({ statusCode: 204, headers: {} })

export function errorBody(statusCode: number, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ data: null, meta: null, error: { code: statusCode, message, ...extra } })
}

export function errorResult(
  statusCode: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: errorBody(statusCode, message, extra) }
}
