/**
 * The EMF writer (shared/metrics/emf.ts): each metric is one JSON line on stdout that CloudWatch
 * Logs reads as the embedded metric format specification says: the `_aws` block names the
 * namespace, one dimension set and each metric with its unit; the values sit at the top level.
 */
import { describe, expect, it, vi } from 'vitest'
import { emfObject, putMetrics } from '../../../shared/metrics/emf.ts'
import { attemptOutcomeOf, countRelayedEvents } from '../../../shared/metrics/app-metrics.ts'
import { captureStdout } from '../../helpers/stdout-lines.ts'

// The unit project runs silent; these tests read the lines a deployed function writes.
vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return { ...actual, config: { ...actual.config, logLevel: 'info', metricsNamespace: 'lms/test' } }
})

const stdout = captureStdout()
const written = stdout.jsonLines

describe('Function: emfObject', () => {
  it('declares the namespace, the dimension set and each metric, and carries their values at the top level', () => {
    // Act
    const line = emfObject(
      'lms/prod',
      {
        dimensions: { Route: 'GET /api/v1/users', Status: '200' },
        metrics: [{ name: 'Requests', unit: 'Count', value: 1 }],
        properties: { requestId: 'r-1' },
      },
      1_700_000_000_000,
    )

    // Assess
    expect(line).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'lms/prod',
            Dimensions: [['Route', 'Status']],
            Metrics: [{ Name: 'Requests', Unit: 'Count' }],
          },
        ],
      },
      Route: 'GET /api/v1/users',
      Status: '200',
      Requests: 1,
      requestId: 'r-1',
    })
  })

  it('publishes metrics without dimensions under one empty dimension set', () => {
    const line = emfObject('lms/prod', { metrics: [{ name: 'EmailsSent', unit: 'Count', value: 3 }] }, 0)

    expect(line._aws).toMatchObject({ CloudWatchMetrics: [{ Dimensions: [[]] }] })
    expect(line.EmailsSent).toBe(3)
  })
})

describe('Function: putMetrics', () => {
  it('writes one line of JSON on stdout, ending in a newline, under the configured namespace', () => {
    // Act
    putMetrics({ metrics: [{ name: 'ExportRows', unit: 'Count', value: 42 }] }, 5)

    // Assess
    expect(stdout.chunks()).toHaveLength(1)
    const chunk = stdout.chunks()[0] ?? ''
    expect(chunk.endsWith('\n')).toBe(true)
    expect(chunk.trim().split('\n')).toHaveLength(1)
    expect(written()[0]).toMatchObject({
      _aws: { Timestamp: 5, CloudWatchMetrics: [{ Namespace: 'lms/test' }] },
      ExportRows: 42,
    })
  })

  it('writes nothing when there is no metric to write', () => {
    putMetrics({ metrics: [] })
    expect(stdout.chunks()).toEqual([])
  })
})

describe('Function: countRelayedEvents', () => {
  it('counts enrollments created and completed among relayed events, and nothing for the others', () => {
    // Act
    countRelayedEvents([
      { event: 'enrollment.created' },
      { event: 'enrollment.created' },
      { event: 'enrollment.completed' },
      { event: 'user.created' },
    ])
    countRelayedEvents([{ event: 'course.published' }])

    // Assess: one line, for the first batch only
    expect(written()).toHaveLength(1)
    expect(written()[0]).toMatchObject({ EnrollmentsCreated: 2, EnrollmentsCompleted: 1 })
  })
})

describe('Function: attemptOutcomeOf', () => {
  it('reads a row still pending after an attempt as a retry', () => {
    expect(['pending', 'delivered', 'failed'].map((s) => attemptOutcomeOf(s as 'pending'))).toEqual([
      'retrying',
      'delivered',
      'failed',
    ])
  })
})
