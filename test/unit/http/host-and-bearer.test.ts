import { describe, expect, it } from 'vitest'
import { bearerToken } from '../../../shared/http/api-key-auth.ts'
import { secondsToNextMonth } from '../../../shared/http/rate-limit.ts'
import { slugFromHost } from '../../../shared/http/tenant-from-host.ts'
import { matchRoute } from '../../../shared/routes.ts'

describe('Function: slugFromHost', () => {
  it.each([
    ['acme.lms.example.com', 'acme'],
    ['ACME.lms.example.com:443', 'acme'],
    ['acme.lms.example.com.', 'acme'],
    ['lms.example.com', undefined],
    ['a.b.lms.example.com', undefined],
    ['acme.example.com', undefined],
    [undefined, undefined],
  ])('reads %s as %s', (host, slug) => {
    expect(slugFromHost(host, 'lms.example.com')).toBe(slug)
  })
})

describe('Function: bearerToken', () => {
  it('reads the scheme case-insensitively and refuses other schemes', () => {
    expect(bearerToken('Bearer abc')).toBe('abc')
    expect(bearerToken('bEaReR   abc  ')).toBe('abc')
    expect(bearerToken('Basic abc')).toBeUndefined()
    expect(bearerToken('Bearer a b')).toBeUndefined()
    expect(bearerToken(undefined)).toBeUndefined()
  })
})

describe('Function: secondsToNextMonth', () => {
  it('counts to midnight UTC on the first of next month', () => {
    expect(secondsToNextMonth(Date.UTC(2026, 11, 31, 23, 59, 0))).toBe(60)
    expect(secondsToNextMonth(Date.UTC(2026, 1, 1))).toBe(28 * 86400)
  })
})

describe('Function: matchRoute', () => {
  it('matches templates like API Gateway, with path parameters', () => {
    expect(matchRoute('GET', '/api/v1/users/abc')?.pathParameters).toEqual({ id: 'abc' })
    expect(matchRoute('DELETE', '/api/v1/groups/g1/members')?.def.scope).toBe('write')
    expect(matchRoute('GET', '/api/v1/users/')).toBeUndefined()
    expect(matchRoute('PUT', '/api/v1/users')).toBeUndefined()
  })
})
