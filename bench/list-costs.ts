/**
 * First pages of the course and enrollment lists (whole request), after write-costs.ts has left
 * courses and 500+ enrollments in the tenant: what fetching a page by key costs against reading it
 * from the index.
 */
import { costOf, type Cost } from './call-summary.ts'
import { expectOk, invoke, type ApiRequest, type LambdaHandler } from './invoke.ts'
import type { SeededTenant } from './seed.ts'

export interface ListCost {
  readonly name: string
  readonly request: string
  readonly cost: Cost
}

export async function runListCosts(
  handlers: { readonly courses: LambdaHandler; readonly enrollments: LambdaHandler },
  seeded: SeededTenant,
): Promise<ListCost[]> {
  const base = { method: 'GET', host: seeded.host, apiKey: seeded.scenarioKey } as const
  const lists: [string, LambdaHandler, string][] = [
    ['courses, first page (default 20)', handlers.courses, '/api/v1/courses'],
    ['courses, first page of 50', handlers.courses, '/api/v1/courses?per_page=50'],
    ['enrollments, first page of 50', handlers.enrollments, '/api/v1/enrollments?per_page=50'],
    ['enrollments, page 5 of 50', handlers.enrollments, '/api/v1/enrollments?per_page=50&page=5'],
    [
      'enrollments status=active, first page',
      handlers.enrollments,
      '/api/v1/enrollments?status=active&per_page=50',
    ],
    ['completions, first page', handlers.enrollments, '/api/v1/completions'],
  ]
  const out: ListCost[] = []
  for (const [name, handler, url] of lists) {
    const req: ApiRequest = { ...base, url }
    expectOk(req, (await invoke(handler, req)).result)
    const { result, calls } = await invoke(handler, req)
    expectOk(req, result)
    out.push({ name, request: `GET ${url}`, cost: costOf(calls) })
  }
  return out
}
