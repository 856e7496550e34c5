import { describe, expect, it } from 'vitest'
import { transactionGroups } from '../../../shared/services/enrollments/enrollment-engine.ts'

describe('transactionGroups: enrollment rows cut to fit one transaction', () => {
  const rows = (n: number, reactivated = false) =>
    Array.from({ length: n }, () => ({ replaces: reactivated }))
  const itemsOf = (r: { replaces: boolean }) => (r.replaces ? 7 : 5)

  it('puts 19 new rows in a transaction (95 items + 5 for the group)', () => {
    expect(transactionGroups(rows(40), itemsOf).map((g) => g.length)).toEqual([19, 19, 2])
  })

  it('takes fewer reactivated rows, which may move two aggregates more each', () => {
    expect(transactionGroups(rows(30, true), itemsOf).map((g) => g.length)).toEqual([13, 13, 4])
  })

  it('keeps the rows in order and makes no empty group', () => {
    const list = [...rows(18), ...rows(2, true)]
    const groups = transactionGroups(list, itemsOf)
    expect(groups.flat()).toEqual(list)
    expect(groups.map((g) => g.length)).toEqual([18, 2])
    expect(transactionGroups([], itemsOf)).toEqual([])
  })
})
