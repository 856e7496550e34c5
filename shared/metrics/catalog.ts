/**
 * The app's metrics by name, read by the code that emits them (app-metrics.ts), the stack's alarm
 * on the outbox (lib/monitoring.ts) and the list in docs/operations.md. No import: the CDK app
 * reads it at synth.
 */
export const metricNames = {
  /** One per API request; dimensions Route (the route key) and Status (the HTTP status). */
  requests: 'Requests',
  /** `enrollment.created` events relayed by the outbox relay or its sweeper. */
  enrollmentsCreated: 'EnrollmentsCreated',
  /** `enrollment.completed` events relayed. */
  enrollmentsCompleted: 'EnrollmentsCompleted',
  /** One per webhook attempt; dimension Outcome: delivered, retrying (another attempt queued) or failed (given up). */
  webhookAttempts: 'WebhookAttempts',
  /** One per statement attempt to a tenant's record store (LRS); dimension Outcome as for webhooks. */
  statementAttempts: 'StatementAttempts',
  /** E-mails handed to the transport (SES in AWS), one per recipient. */
  emailsSent: 'EmailsSent',
  /** How long building one export file took (milliseconds), and its rows. */
  exportDuration: 'ExportDuration',
  exportRows: 'ExportRows',
  /** Age of the oldest outbox event still waiting to be relayed (seconds; 0 when none), each sweep. */
  outboxOldestPendingAge: 'OutboxOldestPendingAge',
} as const

/** What an attempt of a queued delivery (webhook, statement) came to. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed'
