/**
 * What makes LmsStack operable (issue 29): its alarms and their topic, the dashboard, JSON logs,
 * the API's access logs and throttling, the workers' concurrency caps, the retained secrets and
 * the operators' outputs. Synthesized without bundling, as in lms-stack.test.ts.
 */
import { App, type CfnElement } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import {
  accessLogFormat,
  defaultApiThrottle,
  defaultWorkerConcurrency,
  LmsStack,
  type LmsStackProps,
  type WorkerQueue,
} from '../../../lib/lms-stack.ts'
import { alarmThresholds } from '../../../lib/monitoring.ts'
import { metricNames } from '../../../shared/metrics/catalog.ts'

const baseProps: LmsStackProps = {
  serviceHost: 'lms.example.org',
  corporateOrigin: 'https://www.example.org',
}
const workerQueues: readonly WorkerQueue[] = [
  'webhooks',
  'xapi',
  'notifications',
  'exports',
  'replays',
  'ags',
]

const outdirs: string[] = []
const cache = new Map<string, { stack: LmsStack; template: Template }>()

/** Builds (once per set of extra props) and synthesizes the stack without bundling the functions. */
function synth(extra: Partial<LmsStackProps> = {}) {
  const key = JSON.stringify(extra)
  const cached = cache.get(key)
  if (cached) return cached
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  outdirs.push(app.outdir)
  const stack = new LmsStack(app, 'Test', { ...baseProps, ...extra })
  const result = { stack, template: Template.fromStack(stack) }
  cache.set(key, result)
  return result
}

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true })
})

const idOf = (stack: LmsStack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement)

interface MetricRef {
  readonly Namespace: string
  readonly MetricName: string
  readonly Dimensions?: readonly { Name: string; Value: unknown }[]
}
interface AlarmProperties {
  readonly AlarmName: string
  readonly Threshold: number
  readonly ComparisonOperator: string
  readonly EvaluationPeriods: number
  readonly DatapointsToAlarm?: number
  readonly AlarmActions?: unknown[]
  readonly OKActions?: unknown[]
  readonly Namespace?: string
  readonly MetricName?: string
  readonly Dimensions?: MetricRef['Dimensions']
  readonly Statistic?: string
  readonly Metrics?: readonly { MetricStat?: { Metric: MetricRef; Stat: string } }[]
}

function alarmsOf(template: Template): AlarmProperties[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
    (r) => r.Properties as AlarmProperties,
  )
}

/** The metrics an alarm reads: its own, or those of its metric-math expression. */
function metricsOf(alarm: AlarmProperties): (MetricRef & { Stat?: string })[] {
  if (alarm.MetricName && alarm.Namespace) {
    return [{ Namespace: alarm.Namespace, MetricName: alarm.MetricName, Dimensions: alarm.Dimensions ?? [] }]
  }
  return (alarm.Metrics ?? []).flatMap((m) =>
    m.MetricStat ? [{ ...m.MetricStat.Metric, Stat: m.MetricStat.Stat }] : [],
  )
}

/** The alarms on metric `namespace`/`name` whose dimensions include `dimensionValue`. */
function alarmsOn(template: Template, namespace: string, name: string, dimensionValue?: unknown) {
  return alarmsOf(template).filter((a) =>
    metricsOf(a).some(
      (m) =>
        m.Namespace === namespace &&
        m.MetricName === name &&
        (dimensionValue === undefined ||
          (m.Dimensions ?? []).some((d) => JSON.stringify(d.Value) === JSON.stringify(dimensionValue))),
    ),
  )
}

/** Exactly one alarm on the metric, above `threshold`, breaching `periods` periods in a row. */
function expectOneAlarm(
  template: Template,
  metric: [namespace: string, name: string, dimensionValue?: unknown],
  threshold: number,
  periods: number,
): AlarmProperties {
  const found = alarmsOn(template, ...metric)
  expect(found, `alarms on ${metric[1]} ${JSON.stringify(metric[2])}`).toHaveLength(1)
  const alarm = found[0] as AlarmProperties
  expect(alarm).toMatchObject({
    Threshold: threshold,
    ComparisonOperator: 'GreaterThanThreshold',
    EvaluationPeriods: periods,
    DatapointsToAlarm: periods,
  })
  return alarm
}

describe('Construct: LmsStack, alarms', () => {
  it('sends every alarm, and its recovery, to the one alarm topic', () => {
    // Prepare
    const { stack, template } = synth()
    const topic = { Ref: idOf(stack, stack.monitoring.topic) }

    // Act
    const alarms = alarmsOf(template)

    // Assess
    template.resourceCountIs('AWS::SNS::Topic', 1)
    expect(alarms.length).toBeGreaterThan(0)
    for (const alarm of alarms) {
      expect(alarm.AlarmActions, alarm.AlarmName).toEqual([topic])
      expect(alarm.OKActions, alarm.AlarmName).toEqual([topic])
    }
    // Publishers must use TLS (AwsSolutions-SNS3).
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    })
  })

  it('subscribes the alarm e-mail to the topic when the prop is given, and nothing otherwise', () => {
    // Act
    const without = synth()
    const withEmail = synth({ alarmEmail: 'oncall@example.org' })

    // Assess
    without.template.resourceCountIs('AWS::SNS::Subscription', 0)
    withEmail.template.resourceCountIs('AWS::SNS::Subscription', 1)
    withEmail.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.org',
      TopicArn: { Ref: idOf(withEmail.stack, withEmail.stack.monitoring.topic) },
    })
  })

  it('alarms on each dead-letter queue at its first message', () => {
    // Prepare
    const { stack, template } = synth()

    // Act + Assess
    expect([...stack.workers.keys()].sort()).toEqual([...workerQueues].sort())
    for (const [, worker] of stack.workers) {
      const queueName = { 'Fn::GetAtt': [idOf(stack, worker.deadLetterQueue), 'QueueName'] }
      expectOneAlarm(template, ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', queueName], 0, 1)
    }
  })

  it("alarms on the age of each worker queue's oldest message", () => {
    // Prepare
    const { stack, template } = synth()

    // Act + Assess
    for (const [name, worker] of stack.workers) {
      const queueName = { 'Fn::GetAtt': [idOf(stack, worker.queue), 'QueueName'] }
      const age = name === 'exports' ? alarmThresholds.exportQueueAge : alarmThresholds.queueAge
      expectOneAlarm(template, ['AWS/SQS', 'ApproximateAgeOfOldestMessage', queueName], age.toSeconds(), 3)
    }
  })

  it("alarms on each function's first error and first throttle", () => {
    // Prepare
    const { template } = synth()
    const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'))

    // Act + Assess
    expect(functionIds).toHaveLength(25)
    for (const id of functionIds) {
      expectOneAlarm(template, ['AWS/Lambda', 'Errors', { Ref: id }], 0, 1)
      expectOneAlarm(template, ['AWS/Lambda', 'Throttles', { Ref: id }], 0, 1)
    }
  })

  it("alarms on the outbox relay's lag behind the table's stream (its iterator age)", () => {
    // Prepare
    const { template } = synth()
    const relay = Object.keys(
      template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { StartingPosition: 'TRIM_HORIZON' },
      }),
    )
    const relayFn = template.findResources('AWS::Lambda::EventSourceMapping')[relay[0] as string]?.Properties
      .FunctionName as unknown

    // Act
    const alarms = alarmsOn(template, 'AWS/Lambda', 'IteratorAge')

    // Assess
    expect(alarms).toHaveLength(1)
    expectOneAlarm(
      template,
      ['AWS/Lambda', 'IteratorAge', relayFn],
      alarmThresholds.relayIteratorAge.toMilliseconds(),
      3,
    )
  })

  it("alarms on the API's 5xx rate and p99 latency, sustained over 3 periods", () => {
    // Prepare
    const { stack, template } = synth()
    const apiId = { Ref: idOf(stack, stack.api) }

    // Act
    const fault = expectOneAlarm(template, ['AWS/ApiGateway', '5xx', apiId], alarmThresholds.api5xxRate, 3)
    const latency = expectOneAlarm(
      template,
      ['AWS/ApiGateway', 'Latency', apiId],
      alarmThresholds.apiLatencyP99.toMilliseconds(),
      3,
    )

    // Assess: the 5xx metric is 0 or 1 a request, so its average is the share of 5xx answers.
    expect(metricsOf(fault).map((m) => m.Stat)).toEqual(['Average'])
    expect(metricsOf(latency).map((m) => m.Stat)).toEqual(['p99'])
  })

  it("alarms on the table's throttled reads and writes", () => {
    // Prepare
    const { stack, template } = synth()
    const table = { Ref: idOf(stack, stack.table) }

    // Act + Assess
    expectOneAlarm(template, ['AWS/DynamoDB', 'ReadThrottleEvents', table], 0, 2)
    expectOneAlarm(template, ['AWS/DynamoDB', 'WriteThrottleEvents', table], 0, 2)
  })

  it("alarms on the SES account's bounce and complaint rates, where AWS starts a review", () => {
    // Prepare
    const { template } = synth()

    // Act
    const bounce = expectOneAlarm(template, ['AWS/SES', 'Reputation.BounceRate'], 0.05, 1)
    const complaint = expectOneAlarm(template, ['AWS/SES', 'Reputation.ComplaintRate'], 0.001, 1)

    // Assess
    for (const alarm of [bounce, complaint]) expect(alarm.Statistic).toBe('Maximum')
    template.resourceCountIs('AWS::SES::ConfigurationSet', 1)
  })

  it('makes 70 alarms: 2 a function, 2 a worker queue, 2 for the API, 2 for the table, 2 for SES, 1 for the relay, 1 for the outbox', () => {
    // Act
    const { template } = synth()

    // Assess
    expect(alarmsOf(template)).toHaveLength(25 * 2 + 6 * 2 + 2 + 2 + 2 + 1 + 1)
  })

  it('draws one dashboard and outputs its name with the alarm topic', () => {
    // Prepare
    const { stack, template } = synth()

    // Act
    const outputs = template.findOutputs('*')

    // Assess
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1)
    expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: idOf(stack, stack.monitoring.topic) })
    expect(outputs.DashboardName).toBeDefined()
  })

  it('graphs every app metric on the dashboard, those with dimensions by a search per dimension', () => {
    // Act
    const { template } = synth()
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))
    // The body is a join of strings and tokens (region, names): the strings say what is drawn.
    const join = dashboard?.Properties.DashboardBody['Fn::Join'] as [string, unknown[]]
    const body = join[1].filter((part): part is string => typeof part === 'string').join('')

    // Assess
    for (const name of Object.values(metricNames)) expect(body).toContain(name)
    expect(body).toMatch(/SEARCH\('\{\\"[^"\\]+\\",\\"Route\\",\\"Status\\"\}\s+MetricName=\\"Requests\\"/)
    expect(body).toMatch(/\\"Outcome\\"\}\s+MetricName=\\"WebhookAttempts\\"/)
  })
})

describe('Construct: LmsStack, logs and limits', () => {
  it('writes every function log in the JSON format', () => {
    // Act
    const { template } = synth()

    // Assess
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'))
    expect(functions).toHaveLength(25)
    for (const [id, fn] of functions)
      expect(fn.Properties.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON' })
  })

  it('logs each API request as a JSON line with its request id and tenant host, but no client address', () => {
    // Prepare
    const { template } = synth()
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]?.Properties

    // Act
    const format: unknown = JSON.parse(stage.AccessLogSettings.Format as string)

    // Assess
    expect(format).toEqual(accessLogFormat)
    expect(format).toMatchObject({ requestId: '$context.requestId', host: '$context.domainName' })
    expect(stage.AccessLogSettings.Format).not.toContain('sourceIp')
    const [logGroupId] = stage.AccessLogSettings.DestinationArn['Fn::GetAtt'] as [string]
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId]?.Properties).toMatchObject({
      RetentionInDays: 30,
    })
  })

  it('throttles the API stage with the defaults, or with the apiThrottle prop', () => {
    // Act
    const byDefault = synth()
    const given = synth({ apiThrottle: { rateLimit: 50, burstLimit: 80 } })

    // Assess
    byDefault.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: {
        ThrottlingRateLimit: defaultApiThrottle.rateLimit,
        ThrottlingBurstLimit: defaultApiThrottle.burstLimit,
      },
    })
    given.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 },
    })
  })

  it("caps each worker queue's event source concurrency, by default or from the workerConcurrency prop", () => {
    // Prepare
    const byDefault = synth()
    const given = synth({ workerConcurrency: { webhooks: 3 } })
    const caps = (s: { stack: LmsStack; template: Template }) =>
      Object.fromEntries(
        [...s.stack.workers].map(([name, w]) => {
          const mapping = Object.values(
            s.template.findResources('AWS::Lambda::EventSourceMapping', {
              Properties: { EventSourceArn: { 'Fn::GetAtt': [idOf(s.stack, w.queue), 'Arn'] } },
            }),
          )
          expect(mapping, name).toHaveLength(1)
          return [name, mapping[0]?.Properties.ScalingConfig?.MaximumConcurrency as unknown]
        }),
      )

    // Act + Assess
    expect(caps(byDefault)).toEqual(defaultWorkerConcurrency)
    expect(caps(given)).toEqual({ ...defaultWorkerConcurrency, webhooks: 3 })
  })
})

describe('Construct: LmsStack, what outlives the stack', () => {
  it('retains every secret, as it retains the table whose values depend on them', () => {
    // Act
    const { template } = synth()

    // Assess
    const secrets = Object.values(template.findResources('AWS::SecretsManager::Secret'))
    expect(secrets).toHaveLength(4)
    for (const secret of secrets) {
      expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' })
    }
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' })
  })

  it('outputs the table, each queue and dead-letter queue, the buckets and the secret ARNs', () => {
    // Prepare
    const { stack, template } = synth()

    // Act
    const outputs = template.findOutputs('*')

    // Assess
    expect(outputs.TableArn?.Value).toEqual({ 'Fn::GetAtt': [idOf(stack, stack.table), 'Arn'] })
    for (const [name, w] of stack.workers) {
      expect(outputs[`${name}QueueUrl`]?.Value).toEqual({ Ref: idOf(stack, w.queue) })
      expect(outputs[`${name}DeadLetterQueueUrl`]?.Value).toEqual({ Ref: idOf(stack, w.deadLetterQueue) })
      expect(outputs[`${name}DeadLetterQueueArn`]?.Value).toEqual({
        'Fn::GetAtt': [idOf(stack, w.deadLetterQueue), 'Arn'],
      })
    }
    for (const bucket of ['ExportsBucketName', 'ContentBucketName', 'AccessLogsBucketName']) {
      expect(outputs[bucket], bucket).toBeDefined()
    }
    const secretIds = Object.keys(template.findResources('AWS::SecretsManager::Secret'))
    const secretOutputs = Object.values(outputs).map((o) => o.Value as unknown)
    for (const id of secretIds) expect(secretOutputs).toContainEqual({ Ref: id })
  })

  it('logs every access to the exports and content buckets into the access-log bucket', () => {
    // Prepare
    const { template } = synth()
    const buckets = template.findResources('AWS::S3::Bucket')
    const logBucketId = Object.keys(buckets).find((id) => id.startsWith('AccessLogs'))

    // Act
    const logged = Object.values(buckets).filter(
      (b) => b.Properties.LoggingConfiguration?.DestinationBucketName?.Ref === logBucketId,
    )

    // Assess
    expect(logBucketId).toBeDefined()
    expect(logged.map((b) => b.Properties.LoggingConfiguration.LogFilePrefix).sort()).toEqual([
      'content/',
      'exports/',
    ])
    // Delivered under the log bucket's policy, not the deprecated log-delivery ACL.
    expect(buckets[logBucketId as string]?.Properties.AccessControl).toBeUndefined()
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logBucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'logging.s3.amazonaws.com' } }),
        ]),
      },
    })
  })
})
