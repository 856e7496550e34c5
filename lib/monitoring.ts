/**
 * Watching the stack in AWS (issue 29, point 1): one SNS topic every alarm notifies (on alarm and
 * on recovery), an optional e-mail subscription to it, and one CloudWatch dashboard, both built
 * with cdk-monitoring-constructs' MonitoringFacade. What each alarm means and what to do about it
 * is in docs/operations.md; the thresholds are here, named, so the two can be checked together.
 */
import { Duration, Validations } from 'aws-cdk-lib'
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2'
import { ComparisonOperator, Metric, TreatMissingData, type DimensionsMap } from 'aws-cdk-lib/aws-cloudwatch'
import type { ITable } from 'aws-cdk-lib/aws-dynamodb'
import type { IFunction } from 'aws-cdk-lib/aws-lambda'
import { Topic } from 'aws-cdk-lib/aws-sns'
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions'
import type { IQueue } from 'aws-cdk-lib/aws-sqs'
import { BillingMode } from 'aws-cdk-lib/aws-dynamodb'
import { MetricStatistic, MonitoringFacade, SnsAlarmActionStrategy } from 'cdk-monitoring-constructs'
import { Construct } from 'constructs'
import { metricNames } from '../shared/metrics/catalog.ts'

/** The CloudWatch namespace of a stack's app metrics (EMF lines; the functions get it as LMS_METRICS_NAMESPACE). */
export function metricsNamespaceOf(stackName: string): string {
  return `lms/${stackName}`
}

/** The thresholds, each the value an alarm compares its metric with (docs/operations.md). */
export const alarmThresholds = {
  /** Messages in a dead-letter queue: any, in the first 5-minute period it holds one. */
  deadLetterMessages: 0,
  /** Unhandled errors (crashes, timeouts) of one function in a 5-minute period: any. */
  functionErrors: 0,
  /** Throttled invocations of one function in a 5-minute period: any. */
  functionThrottles: 0,
  /**
   * Age of a worker queue's oldest message, in 3 consecutive 5-minute periods; the export
   * queue's jobs run minutes each, one at a time per invocation.
   */
  queueAge: Duration.minutes(15),
  exportQueueAge: Duration.hours(1),
  /** The outbox relay's iterator age (how far behind the table's stream it reads), 3 periods. */
  relayIteratorAge: Duration.minutes(5),
  /**
   * Age of the oldest outbox event still pending, as the sweeper measures it each minute: the
   * sweeper relays whatever the stream left after a minute, so past this the sweeper fails too.
   */
  outboxOldestPendingAge: Duration.minutes(10),
  /** Share of API requests answered 5xx, in each of 3 consecutive 5-minute periods. */
  api5xxRate: 0.01,
  /** p99 of the API's latency, in each of 3 consecutive 5-minute periods. */
  apiLatencyP99: Duration.seconds(3),
  /** Throttled reads (writes) of the table in 5 minutes, in 2 consecutive periods. */
  tableThrottledEvents: 0,
  /** SES account reputation: AWS reviews an account at 5% bounces and 0.1% complaints. */
  sesBounceRate: 0.05,
  sesComplaintRate: 0.001,
} as const

/**
 * Alarms the library evaluates over 3 periods unless told otherwise; these fire on the first
 * period that breaches (a message in a dead-letter queue, an error, a throttle is never noise).
 */
const atOnce = { datapointsToAlarm: 1, evaluationPeriods: 1 } as const

export interface WatchedFunction {
  /** The name alarms and the dashboard give it (a route group, `worker webhooks`, ...). */
  readonly name: string
  readonly fn: IFunction
}

export interface WatchedQueue {
  /** The queue's short name (`webhooks`, `exports`, ...). */
  readonly name: string
  readonly queue: IQueue
  readonly deadLetterQueue: IQueue
}

export interface LmsMonitoringProps {
  /** Prefix of every alarm and dashboard name (they are unique per account and region). */
  readonly namePrefix: string
  /** Where alarm notifications are e-mailed. @default no subscription (subscribe to the topic) */
  readonly alarmEmail?: string
  readonly api: IHttpApi
  readonly table: ITable
  readonly functions: readonly WatchedFunction[]
  readonly queues: readonly WatchedQueue[]
  /** The outbox relay: its stream event source's iterator age is the relay's lag. */
  readonly relay: IFunction
  /** Where the functions write their EMF metrics (metricsNamespaceOf): the outbox's age is one. */
  readonly metricsNamespace: string
  /**
   * Watch the account's SES reputation (the stack sends through its SES configuration set).
   * @default true
   */
  readonly sesReputation?: boolean
}

/**
 * The alarms, their topic and the dashboard.
 *
 * @example
 * new LmsMonitoring(stack, 'Monitoring', { namePrefix: 'Lms', api, table, functions, queues, relay })
 */
export class LmsMonitoring extends Construct {
  readonly topic: Topic
  readonly facade: MonitoringFacade

  constructor(scope: Construct, id: string, props: LmsMonitoringProps) {
    super(scope, id)
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${props.namePrefix} alarms`,
      enforceSSL: true,
    })
    if (props.alarmEmail) {
      const subscription = new EmailSubscription(props.alarmEmail)
      this.topic.addSubscription(subscription)
      Validations.of(this.topic).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'An alarm e-mail SNS could not deliver is not worth keeping: the alarm stays in its state in CloudWatch (console, dashboard) until it recovers.',
      })
    }

    const action = new SnsAlarmActionStrategy({ onAlarmTopic: this.topic, onOkTopic: this.topic })
    this.facade = new MonitoringFacade(this, props.namePrefix, {
      alarmFactoryDefaults: { alarmNamePrefix: props.namePrefix, actionsEnabled: true, action },
    })
    this.watchApi(props.api)
    this.watchTable(props.table)
    this.watchQueues(props.queues)
    this.watchFunctions(props.functions, props.relay)
    this.watchOutbox(props.metricsNamespace)
    this.watchAppMetrics(props.metricsNamespace)
    if (props.sesReputation ?? true) this.watchSesReputation()
  }

  private watchApi(api: IHttpApi): void {
    const sustained = { datapointsToAlarm: 3, evaluationPeriods: 3 }
    this.facade.addLargeHeader('LMS API').monitorApiGatewayV2HttpApi({
      api,
      alarmFriendlyName: 'Api',
      humanReadableName: 'HTTP API (every tenant)',
      add5xxRateAlarm: { Critical: { maxErrorRate: alarmThresholds.api5xxRate, ...sustained } },
      addLatencyP99Alarm: { Critical: { maxLatency: alarmThresholds.apiLatencyP99, ...sustained } },
    })
  }

  private watchTable(table: ITable): void {
    const twice = { datapointsToAlarm: 2, evaluationPeriods: 2 }
    const threshold = { maxThrottledEventsThreshold: alarmThresholds.tableThrottledEvents, ...twice }
    this.facade.monitorDynamoTable({
      table,
      billingMode: BillingMode.PAY_PER_REQUEST,
      alarmFriendlyName: 'Table',
      humanReadableName: 'The table',
      addReadThrottledEventsCountAlarm: { Warning: threshold },
      addWriteThrottledEventsCountAlarm: { Warning: threshold },
    })
  }

  private watchQueues(queues: readonly WatchedQueue[]): void {
    this.facade.addLargeHeader('Worker queues')
    for (const q of queues) {
      const age = q.name === 'exports' ? alarmThresholds.exportQueueAge : alarmThresholds.queueAge
      this.facade.monitorSqsQueueWithDlq({
        queue: q.queue,
        deadLetterQueue: q.deadLetterQueue,
        alarmFriendlyName: `Queue-${q.name}`,
        humanReadableName: `lms-${q.name} and its dead-letter queue`,
        addQueueMaxMessageAgeAlarm: { Warning: { maxAgeInSeconds: age.toSeconds() } },
        addDeadLetterQueueMaxSizeAlarm: {
          Critical: { maxMessageCount: alarmThresholds.deadLetterMessages, ...atOnce },
        },
      })
    }
  }

  private watchFunctions(functions: readonly WatchedFunction[], relay: IFunction): void {
    this.facade.addLargeHeader('Functions')
    for (const { name, fn } of functions) {
      this.facade.monitorLambdaFunction({
        lambdaFunction: fn,
        alarmFriendlyName: `Function-${name.replace(/[^A-Za-z0-9-]/g, '-')}`,
        humanReadableName: name,
        addFaultCountAlarm: { Critical: { maxErrorCount: alarmThresholds.functionErrors, ...atOnce } },
        addThrottlesCountAlarm: { Warning: { maxErrorCount: alarmThresholds.functionThrottles, ...atOnce } },
        ...(fn === relay
          ? {
              addMaxIteratorAgeAlarm: {
                Warning: { maxAgeInMillis: alarmThresholds.relayIteratorAge.toMilliseconds() },
              },
            }
          : {}),
      })
    }
  }

  /**
   * The outbox's own lag, from the app's metric: the sweeper writes the oldest pending event's age
   * each run while any is pending, nothing otherwise (then the alarm reads no data as fine).
   */
  private watchOutbox(namespace: string): void {
    const threshold = alarmThresholds.outboxOldestPendingAge
    this.facade.monitorCustom({
      alarmFriendlyName: 'Outbox',
      humanReadableName: 'Outbox: oldest pending event',
      metricGroups: [
        {
          title: 'Age of the oldest event not yet relayed (seconds)',
          metrics: [
            {
              metric: new Metric({
                namespace,
                metricName: metricNames.outboxOldestPendingAge,
                statistic: 'Maximum',
                period: Duration.minutes(5),
              }),
              alarmFriendlyName: 'OldestPendingAge',
              addAlarm: {
                Critical: {
                  threshold: threshold.toSeconds(),
                  comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
                  treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
                  additionalDescription: `An outbox event has waited over ${threshold.toMinutes()} minutes to be relayed: webhooks, statements and e-mails are held up.`,
                  ...atOnce,
                },
              },
            },
          ],
        },
      ],
    })
  }

  /**
   * The app's own metrics (shared/metrics/catalog.ts), graphed without alarms: what the API and
   * the workers did, beside the platform's view of them above. A metric with dimensions is drawn
   * by a search, one line per value (a route and status, an outcome).
   */
  private watchAppMetrics(namespace: string): void {
    const every = (name: string, dimensions: readonly string[], statistic = MetricStatistic.SUM) => ({
      namespace,
      searchQuery: `MetricName="${name}"`,
      // The keys name the dimensions searched; a value left out matches every value.
      dimensionsMap: Object.fromEntries(dimensions.map((d) => [d, undefined])) as unknown as DimensionsMap,
      statistic,
      period: Duration.minutes(5),
    })
    const total = (name: string, statistic: string = 'Sum') =>
      new Metric({ namespace, metricName: name, statistic, period: Duration.minutes(5) })
    this.facade.addLargeHeader('What the product did').monitorCustom({
      alarmFriendlyName: 'App',
      humanReadableName: 'Requests, enrollments, deliveries, e-mail and exports (app metrics)',
      metricGroups: [
        {
          title: 'Requests by route and status',
          metrics: [every(metricNames.requests, ['Route', 'Status'])],
        },
        {
          title: 'Enrollments created and completed',
          metrics: [total(metricNames.enrollmentsCreated), total(metricNames.enrollmentsCompleted)],
        },
        {
          title: 'Webhook and statement attempts by outcome',
          metrics: [
            every(metricNames.webhookAttempts, ['Outcome']),
            every(metricNames.statementAttempts, ['Outcome']),
          ],
        },
        { title: 'E-mails sent', metrics: [total(metricNames.emailsSent)] },
        {
          title: 'Exports: build time (p90, ms) and rows',
          metrics: [total(metricNames.exportDuration, 'p90'), total(metricNames.exportRows)],
        },
      ],
    })
  }

  /**
   * SES publishes the account's reputation (not the configuration set's, unless asked to) as
   * fractions under AWS/SES; the review and pause that follow a bad rate are account-wide too.
   */
  private watchSesReputation(): void {
    const rate = (metricName: string) =>
      new Metric({
        namespace: 'AWS/SES',
        metricName,
        statistic: 'Maximum',
        period: Duration.hours(1),
      })
    const above = (threshold: number, what: string) => ({
      Critical: {
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingDataOverride: TreatMissingData.NOT_BREACHING,
        additionalDescription: `SES ${what} rate above ${threshold * 100}% (AWS reviews the account there).`,
        ...atOnce,
      },
    })
    this.facade.monitorCustom({
      alarmFriendlyName: 'SES',
      humanReadableName: 'E-mail reputation (SES, account)',
      metricGroups: [
        {
          title: 'Bounce and complaint rates',
          metrics: [
            {
              metric: rate('Reputation.BounceRate'),
              alarmFriendlyName: 'BounceRate',
              addAlarm: above(alarmThresholds.sesBounceRate, 'bounce'),
            },
            {
              metric: rate('Reputation.ComplaintRate'),
              alarmFriendlyName: 'ComplaintRate',
              addAlarm: above(alarmThresholds.sesComplaintRate, 'complaint'),
            },
          ],
        },
      ],
    })
  }
}
