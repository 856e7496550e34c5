import { describe, expect, it } from 'vitest'
import type { RouteHandler } from '../../../shared/http/route.ts'
import { routeGroups, routeKey, routes } from '../../../shared/routes.ts'

function isRouteHandler(x: unknown): x is RouteHandler {
  return typeof x === 'object' && x !== null && 'def' in x && 'handle' in x
}

describe('Module: route table', () => {
  it('has exactly one handler for every row, in the row group', async () => {
    for (const group of routeGroups) {
      const mod = (await import(`../../../functions/${group}/handler.ts`)) as Record<string, unknown>
      expect(typeof mod.handler, group).toBe('function')
      const served = Object.values(mod)
        .filter(isRouteHandler)
        .map((h) => routeKey(h.def))
        .sort()
      const declared = routes
        .filter((r) => r.group === group)
        .map(routeKey)
        .sort()
      expect(served, group).toEqual(declared)
    }
  })

  it('declares every method and path once', () => {
    const keys = routes.map(routeKey)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
