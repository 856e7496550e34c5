/**
 * The app's own metrics in the stack (issue 29, points 1 and 2): every function writes its EMF
 * lines under the stack's namespace, and the outbox's lag, which the sweeper writes there, has its
 * alarm on the alarm topic. Synthesized without bundling, as in lms-stack.test.ts.
 */
import { App } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { LmsStack } from '../../../lib/lms-stack.ts'
import { alarmThresholds, metricsNamespaceOf } from '../../../lib/monitoring.ts'
import { metricNames } from '../../../shared/metrics/catalog.ts'

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const stack = new LmsStack(app, 'Metrics', {
  serviceHost: 'lms.example.org',
  corporateOrigin: 'https://www.example.org',
})
const template = Template.fromStack(stack)

afterAll(() => rmSync(app.outdir, { recursive: true, force: true }))

interface FunctionProperties {
  readonly Environment?: { readonly Variables?: Record<string, unknown> }
}

describe('Construct: LmsStack, app metrics', () => {
  it('gives every function the namespace of its stack for its EMF lines', () => {
    // Act
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'))

    // Assess
    expect(functions.length).toBeGreaterThan(0)
    for (const [id, fn] of functions) {
      const env = (fn.Properties as FunctionProperties).Environment?.Variables ?? {}
      expect(env.LMS_METRICS_NAMESPACE, id).toBe('lms/Metrics')
    }
  })

  it('alarms, at once and critically, when the oldest pending outbox event is older than the threshold', () => {
    // Prepare
    const topic = { Ref: stack.getLogicalId(stack.monitoring.topic.node.defaultChild as never) }

    // Act
    const alarms = Object.values(
      template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: metricNames.outboxOldestPendingAge },
      }),
    ).map((r) => r.Properties as Record<string, unknown>)

    // Assess
    expect(alarms).toHaveLength(1)
    expect(alarms[0]).toMatchObject({
      AlarmName: 'Metrics-Outbox-OldestPendingAge-Critical',
      Namespace: metricsNamespaceOf('Metrics'),
      Statistic: 'Maximum',
      Period: 300,
      Threshold: alarmThresholds.outboxOldestPendingAge.toSeconds(),
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      // The sweeper writes the age only while an event is pending.
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic],
      OKActions: [topic],
    })
    expect(alarms[0]?.Dimensions ?? []).toEqual([])
  })
})
