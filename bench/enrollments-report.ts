/** The printed Enrollments section and its lines in the closing summary. */
import type { CallSummary, Cost } from './call-summary.ts'
import { ROWS_PER_TRANSACTION, type BulkResult, type EnrollmentsResult } from './enrollments.ts'
import { round } from './stats.ts'

const pad = (s: string | number, n: number) => String(s).padEnd(n)
const lpad = (s: string | number, n: number) => String(s).padStart(n)
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const costLine = (c: Cost) => `${c.calls} calls, ${c.rcu} RCU, ${c.wcu} WCU`

function attemptsLine(cost: CallSummary): string {
  const failed = Object.entries(cost.failedAttempts)
  if (failed.length === 0)
    return `  SDK attempts: ${cost.attempts}, none failed (every attempt is in the counts above)`
  const n = failed.reduce((a, [, k]) => a + k, 0)
  return (
    `  SDK attempts: ${cost.attempts}; ${n} failed and are NOT in the counts above: ` +
    failed.map(([what, k]) => `${what} x${k}`).join(', ')
  )
}

function byOpLines(cost: CallSummary): string[] {
  return cost.byOp.map(
    (o) =>
      `    ${pad(o.op, 19)} ${lpad(plural(o.calls, 'call'), 10)} ${lpad(o.rcu, 9)} RCU ${lpad(o.wcu, 9)} WCU`,
  )
}

function transactionVerdict(b: BulkResult): string {
  const perCourse =
    b.courses === 1 ? `${b.rows} rows in 1 course` : `${b.rows} rows over ${b.courses} courses`
  const design = `design: ${b.courses === 1 ? '' : 'per course '}ceil(rows/${ROWS_PER_TRANSACTION}) = ${b.expectedTransactions}`
  const verdict = b.transactWriteItems === b.expectedTransactions ? 'as designed' : 'DIFFERS from the design'
  const rowsPerTx = b.transactWriteItems > 0 ? round((b.created ?? 0) / b.transactWriteItems, 1) : 0
  const items = b.cost.transactItems
  return (
    `  => ${b.transactWriteItems} TransactWriteItems for ${perCourse} (${design}; ${verdict}); ` +
    `${rowsPerTx} created rows and ${round(items.total / Math.max(1, b.transactWriteItems), 1)} items ` +
    `per transaction (${items.total} items in all, at most ${items.max} in one)`
  )
}

function bulkLines(b: BulkResult): string[] {
  const errors = Object.entries(b.rowErrors)
  return [
    '',
    `${b.name}: ${b.request}`,
    `  status ${b.status}, created ${b.created ?? '-'}, skipped ${b.skipped ?? '-'}` +
      `${errors.length ? ` (${errors.map(([c, n]) => `${c} x${n}`).join(', ')})` : ''}, ${b.ms} ms wall`,
    ...(b.failure === null ? [] : [`  FAILED: ${b.failure}`]),
    '  calls by operation:',
    ...byOpLines(b.cost),
    `  total: ${costLine(b.cost.totals)} (handler: ${costLine(b.cost.handler)})`,
    transactionVerdict(b),
    attemptsLine(b.cost),
  ]
}

export function formatEnrollments(e: EnrollmentsResult): string[] {
  const s = e.setup
  const failedSetup = Object.entries(s.failedAttempts)
  const lines = [
    `setup (not counted): ${s.courses} courses created and published through the courses service ` +
      `(${s.coursesWithModule} with one required module), ${s.concurrency} at a time, in ` +
      `${round(s.ms / 1000, 2)} s (${costLine(s.cost)})` +
      (failedSetup.length
        ? `; failed attempts, retried: ${failedSetup.map(([w, n]) => `${w} x${n}`).join(', ')}`
        : ''),
  ]
  const c = e.transactionCapacity
  lines.push(
    `note: this store reports a TransactWriteItems of 1 tiny Put as ${c.oneItemCu} CU and one of ` +
      `${c.manyItems} tiny Puts as ${c.manyItemsCu} CU` +
      (c.manyItemsCu < c.manyItems * c.oneItemCu
        ? ': it does not add up the items, so the WCU of multi-item transactions below are an ' +
          'undercount (DynamoDB bills every item of a transaction, 2 WCU per KB each)'
        : ''),
  )
  for (const b of e.bulk) lines.push(...bulkLines(b))
  const l = e.learner
  lines.push(
    '',
    `learner ${l.userId}: ${l.enrollments} enrollments (the bulk above), ${l.completions} completed ` +
      `through recordActivity in ${round(l.completionMs / 1000, 2)} s (not counted)`,
  )
  for (const t of e.transcript) {
    lines.push('', `${t.name}: ${t.request}`)
    lines.push(
      `  status ${t.status}, ${t.items ?? '-'} items, meta.total ${t.metaTotal ?? '-'}, ` +
        `${t.completed ?? '-'} completed, ${round(t.bytes / 1024, 1)} KiB, ${t.ms} ms wall`,
    )
    t.calls.forEach((c, i) => {
      lines.push(
        `  ${lpad(i + 1, 3)}. ${pad(c.op, 12)} ${lpad(round(c.rcu, 2), 7)} RCU ${lpad(round(c.wcu, 2), 6)} WCU  ${c.label}`,
      )
    })
    lines.push(`  total: ${costLine(t.cost.totals)} (handler: ${costLine(t.cost.handler)})`)
    lines.push(attemptsLine(t.cost))
  }
  lines.push('', `enrollments section wall time (setup included): ${round(e.ms / 1000, 1)} s`)
  return lines
}

/** One line per measured enrollments request, for the closing summary. */
export function enrollmentsSummary(e: EnrollmentsResult): string[] {
  return [
    ...e.bulk.map(
      (b) =>
        `  bulk ${pad(b.name, 58)} ${b.status}, ${b.created ?? '-'} created, ${b.skipped ?? '-'} skipped, ` +
        `${b.transactWriteItems} TransactWriteItems, ${costLine(b.cost.totals)}, ${b.ms} ms`,
    ),
    ...e.transcript.map(
      (t) =>
        `  ${pad(t.name, 63)} ${t.status}, ${t.items ?? '-'} items, ${costLine(t.cost.totals)}, ${t.ms} ms`,
    ),
  ]
}
