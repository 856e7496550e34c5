/**
 * CloudWatch embedded metric format (EMF): a metric is a JSON log line that CloudWatch Logs turns
 * into a metric, with no call to CloudWatch and no grant beyond the log group the function already
 * writes. Our own writer rather than Powertools Metrics: the line is all either produces, and ours
 * adds no bundle weight or import time (figures in docs/decisions/0029-metrics.md).
 *
 * Each call writes one line straight to stdout (`process.stdout.write`), not through `console`:
 * under Lambda's JSON log format the runtime wraps `console` output in its own object, and
 * CloudWatch only extracts metrics from a line whose top level is the EMF object.
 */
import { config } from '../config.ts'

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds'

export interface MetricValue {
  readonly name: string
  readonly unit: MetricUnit
  readonly value: number
}

export interface MetricsLine {
  /** Dimension name → value; the metrics are published under this one set of dimensions. */
  readonly dimensions?: Readonly<Record<string, string>>
  readonly metrics: readonly MetricValue[]
  /**
   * Searchable fields of the same line that are not dimensions (ids, for Logs Insights): they cost
   * nothing in CloudWatch Metrics, where every distinct dimension value is a metric of its own.
   */
  readonly properties?: Readonly<Record<string, string | number | boolean | undefined>>
}

/**
 * The EMF object of one line (the specification's `_aws` block, then each dimension, property and
 * metric value at the top level).
 *
 * @example
 * emfObject('lms/prod', { dimensions: { Route: 'GET /api/v1/users' }, metrics: [{ name: 'Requests', unit: 'Count', value: 1 }] }, 0)
 * // { _aws: { Timestamp: 0, CloudWatchMetrics: [{ Namespace: 'lms/prod', Dimensions: [['Route']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] }] }, Route: 'GET /api/v1/users', Requests: 1 }
 */
export function emfObject(namespace: string, line: MetricsLine, timestamp: number): Record<string, unknown> {
  const dimensions = line.dimensions ?? {}
  const names = Object.keys(dimensions)
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          // An empty set publishes each metric without dimensions: one series for the whole stack.
          Dimensions: [names],
          Metrics: line.metrics.map((m) => ({ Name: m.name, Unit: m.unit })),
        },
      ],
    },
    ...line.properties,
    ...dimensions,
    ...Object.fromEntries(line.metrics.map((m) => [m.name, m.value])),
  }
}

/** Writes one EMF line under the stack's namespace; nothing at log level `silent` (tests, the CLI). */
export function putMetrics(line: MetricsLine, timestamp = Date.now()): void {
  if (config.logLevel === 'silent' || line.metrics.length === 0) return
  process.stdout.write(`${JSON.stringify(emfObject(config.metricsNamespace, line, timestamp))}\n`)
}
