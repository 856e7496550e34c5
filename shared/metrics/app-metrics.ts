/**
 * The app's business and operational metrics (catalog.ts), each written as one EMF line
 * (emf.ts) by a handler, a middleware or a worker: the services and stores only report what
 * happened. Dimensions are few and bounded (a route, a status, an outcome), since each distinct
 * combination is a metric CloudWatch bills for; ids go in as properties, searchable in Logs Insights.
 */
import { putMetrics } from './emf.ts'
import { metricNames, type AttemptOutcome } from './catalog.ts'

export function countRequest(
  route: string,
  status: number,
  ids: { requestId: string; tenantId?: string },
): void {
  putMetrics({
    dimensions: { Route: route, Status: String(status) },
    metrics: [{ name: metricNames.requests, unit: 'Count', value: 1 }],
    properties: ids,
  })
}

/** Enrollments created and completed among events just relayed (other event types count nothing). */
export function countRelayedEvents(events: readonly { readonly event: string }[]): void {
  const created = events.filter((e) => e.event === 'enrollment.created').length
  const completed = events.filter((e) => e.event === 'enrollment.completed').length
  putMetrics({
    metrics: [
      ...(created ? [{ name: metricNames.enrollmentsCreated, unit: 'Count' as const, value: created }] : []),
      ...(completed
        ? [{ name: metricNames.enrollmentsCompleted, unit: 'Count' as const, value: completed }]
        : []),
    ],
  })
}

/** One attempt of a webhook (`webhook`) or a statement (`statement`) and what it came to. */
export function countAttempt(kind: 'webhook' | 'statement', outcome: AttemptOutcome): void {
  putMetrics({
    dimensions: { Outcome: outcome },
    metrics: [
      {
        name: kind === 'webhook' ? metricNames.webhookAttempts : metricNames.statementAttempts,
        unit: 'Count',
        value: 1,
      },
    ],
  })
}

export function countEmailsSent(sent: number, ids: { notificationId: string; template: string }): void {
  if (sent > 0)
    putMetrics({ metrics: [{ name: metricNames.emailsSent, unit: 'Count', value: sent }], properties: ids })
}

export function recordExport(
  built: { ms: number; rows: number },
  ids: { jobId: string; format: string },
): void {
  putMetrics({
    metrics: [
      { name: metricNames.exportDuration, unit: 'Milliseconds', value: built.ms },
      { name: metricNames.exportRows, unit: 'Count', value: built.rows },
    ],
    properties: ids,
  })
}

export function recordOutboxAge(seconds: number): void {
  putMetrics({ metrics: [{ name: metricNames.outboxOldestPendingAge, unit: 'Seconds', value: seconds }] })
}

/** A delivery row's status after an attempt, as the attempt's outcome (`pending`: another is queued). */
export function attemptOutcomeOf(status: 'pending' | 'delivered' | 'failed'): AttemptOutcome {
  return status === 'pending' ? 'retrying' : status
}
