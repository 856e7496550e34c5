/**
 * The record of a local stack's IAM decisions (LMS_IAM_RECORD): one JSON line per distinct
 * decision, appended by local-iam-check.ts; read back by the test run to count and report them.
 */
import { existsSync, readFileSync } from 'node:fs'
import type { CheckedCall } from './iam-check.ts'

export function readCheckedCalls(file: string): CheckedCall[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CheckedCall)
}

export interface CheckedSummary {
  /** Distinct (function, action, resource) triples checked. */
  readonly triples: number
  /** Distinct (action, resource) pairs, whatever the function. */
  readonly pairs: number
  readonly functions: number
  readonly refused: readonly CheckedCall[]
}

export function summarize(calls: readonly CheckedCall[]): CheckedSummary {
  const triples = new Set(calls.map((c) => `${c.function} ${c.action} ${c.resource}`))
  const pairs = new Set(calls.map((c) => `${c.action} ${c.resource}`))
  const refused = new Map(
    calls.filter((c) => !c.allowed).map((c) => [`${c.function} ${c.action} ${c.resource}`, c]),
  )
  return {
    triples: triples.size,
    pairs: pairs.size,
    functions: new Set(calls.map((c) => c.function)).size,
    refused: [...refused.values()],
  }
}

/** One line for the end of a run; the refusals after it, one a line. */
export function describeSummary(s: CheckedSummary, file: string): string {
  const head = `local IAM check: ${s.triples} distinct function/action/resource checks (${s.pairs} action/resource pairs, ${s.functions} functions), ${s.refused.length} refused; record ${file}`
  return [
    head,
    ...s.refused.map((c) => `  refused: ${c.function} ${c.action} on ${c.resource}: ${c.reason ?? ''}`),
  ].join('\n')
}
