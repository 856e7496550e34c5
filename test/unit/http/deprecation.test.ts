import { describe, expect, it } from 'vitest'
import { deprecationHeaders } from '../../../shared/http/deprecation.ts'
import type { RouteDef } from '../../../shared/routes.ts'

describe('Function: deprecationHeaders', () => {
  it('announces a deprecated route with Deprecation, Sunset and Link', () => {
    const route: RouteDef = {
      method: 'GET',
      path: '/api/v1/old',
      group: 'users',
      scope: 'read',
      deprecation: {
        since: '2026-01-01T00:00:00Z',
        sunset: '2027-01-01T00:00:00Z',
        link: 'https://docs.example/migrate',
      },
    }
    expect(deprecationHeaders(route)).toEqual({
      deprecation: '@1767225600',
      sunset: 'Fri, 01 Jan 2027 00:00:00 GMT',
      link: '<https://docs.example/migrate>; rel="deprecation"',
    })
  })

  it('adds nothing for a current route or an unmatched request', () => {
    expect(
      deprecationHeaders({ method: 'GET', path: '/api/v1/users', group: 'users', scope: 'read' }),
    ).toEqual({})
    expect(deprecationHeaders(undefined)).toEqual({})
  })
})
