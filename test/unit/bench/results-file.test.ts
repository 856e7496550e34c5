import { describe, expect, it } from 'vitest'
import { compare, figuresOf } from '../../../bench/results-file.ts'
import { sequentialRoundTrips, type SdkAttempt } from '../../../bench/sdk-probe.ts'

const attempt = (op: string, startMs: number, endMs: number): SdkAttempt => ({
  op,
  outcome: 'ok',
  startMs,
  endMs,
})

describe('Function: figuresOf', () => {
  it('names numbers and booleans by their path, array elements by their name, and leaves call lists out', () => {
    // Act
    const figures = figuresOf({
      scenarios: [
        { name: 'GET by id', totals: { calls: 3, rcu: 1.5 }, calls: [{ op: 'GetItem', rcu: 1 }], ok: true },
      ],
      groups: [{ group: 'plans', bytes: 20_000, coldImportMs: [1, 2] }],
      note: 'text is not a figure',
    })

    // Assess
    expect(figures).toEqual({
      'scenarios.GET by id.totals.calls': 3,
      'scenarios.GET by id.totals.rcu': 1.5,
      'scenarios.GET by id.ok': true,
      'groups.plans.bytes': 20_000,
    })
  })
})

describe('Function: compare', () => {
  it('prints each figure beside the committed one, with the change, and the figures gone since', () => {
    // Act
    const text = compare('bundles', { a: 110, b: 5, c: 7 }, { a: 100, b: 5, d: 1 })

    // Assess
    expect(text.split('\n')).toEqual([
      '[bundles]',
      expect.stringMatching(/^ {2}a +110 {2}was 100 \+10%$/),
      expect.stringMatching(/^ {2}b +5 {2}=$/),
      expect.stringMatching(/^ {2}c +7 {2}new$/),
      expect.stringMatching(/^ {2}d +- {2}gone \(was 1\)$/),
    ])
  })

  it('says when there is no committed run of the section', () => {
    expect(compare('events', { p50: 1 }, undefined).split('\n')[0]).toBe(
      '[events] (no committed run of this section)',
    )
  })
})

describe('Function: sequentialRoundTrips', () => {
  it('counts calls sent one after another, and overlapping calls once', () => {
    // Key, minute window, then month and the handler's read together
    const overlapped = [
      attempt('GetItem', 0, 10),
      attempt('UpdateItem', 10, 20),
      attempt('UpdateItem', 20, 30),
    ]
    expect(sequentialRoundTrips([...overlapped, attempt('GetItem', 21, 29)])).toBe(3)
    expect(sequentialRoundTrips([...overlapped, attempt('GetItem', 30, 40)])).toBe(4)
    expect(sequentialRoundTrips([])).toBe(0)
  })
})
