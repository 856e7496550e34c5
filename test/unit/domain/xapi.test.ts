import { describe, expect, it } from 'vitest'
import { classify, retryDelay } from '../../../shared/domain/xapi/delivery.ts'
import { actorFor, statementIdFor } from '../../../shared/domain/xapi/statement.ts'

const response = (status: number) => ({
  kind: 'response' as const,
  status,
  body: '',
  durationMs: 1,
  headers: {},
})

describe('Function: classify (record-store answers)', () => {
  it.each([200, 204])('delivers on %i', (status) => {
    expect(classify(response(status))).toEqual({ kind: 'delivered' })
  })

  it.each([500, 502, 503, 408, 429])('retries on %i', (status) => {
    expect(classify(response(status))).toMatchObject({ kind: 'retry' })
  })

  it.each([400, 401, 403, 409])('stops at once on %i', (status) => {
    expect(classify(response(status))).toMatchObject({ kind: 'stop', reason: `http_${status}` })
  })

  it('retries network errors and timeouts, stops on a refused target', () => {
    expect(classify({ kind: 'failure', reason: 'network', message: 'x', durationMs: 1 })).toMatchObject({
      kind: 'retry',
    })
    expect(classify({ kind: 'failure', reason: 'timeout', message: 'x', durationMs: 1 })).toMatchObject({
      kind: 'retry',
    })
    expect(classify({ kind: 'failure', reason: 'refused', message: 'x', durationMs: 1 })).toMatchObject({
      kind: 'stop',
    })
  })

  it('retries five times at 30 s, 1, 2 and 4 min by default', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(n, [30, 60, 120, 240]))).toEqual([
      30,
      60,
      120,
      240,
      undefined,
    ])
  })
})

describe('Function: actorFor', () => {
  it('sends an account by default, an mbox in email mode, and never a name', () => {
    expect(actorFor('anonymous', 'https://acme.lms.example.com', 'u1', 'a@b.co')).toEqual({
      objectType: 'Agent',
      account: { homePage: 'https://acme.lms.example.com', name: 'u1' },
    })
    expect(actorFor('email', 'https://p', 'u1', 'A@B.co')).toEqual({
      objectType: 'Agent',
      mbox: 'mailto:a@b.co',
    })
    expect(actorFor('email', 'https://p', 'u1', 'not an email')).toMatchObject({ account: { name: 'u1' } })
  })

  it('fixes one statement id per event', () => {
    expect(statementIdFor('e1')).toBe(statementIdFor('e1'))
    expect(statementIdFor('e1')).not.toBe(statementIdFor('e2'))
    expect(statementIdFor('e1')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    )
  })
})
