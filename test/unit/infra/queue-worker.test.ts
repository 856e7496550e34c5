/**
 * Property assertions on the QueueWorker construct, synthesized alone in a small stack (bundling
 * skipped, as in lms-stack.test.ts).
 */
import { App, Duration, Stack } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_WORKER_CONCURRENCY, QueueWorker, visibilityTimeoutFor } from '../../../lib/queue-worker.ts'

const entry = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'functions',
  'workers',
  'webhook-delivery',
  'handler.ts',
)
const outdirs: string[] = []

function synth(props: Partial<ConstructorParameters<typeof QueueWorker>[2]> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  outdirs.push(app.outdir)
  const stack = new Stack(app, 'Test')
  const worker = new QueueWorker(stack, 'jobs', {
    entry,
    environment: { LMS_TABLE_NAME: 'table' },
    timeout: Duration.seconds(30),
    ...props,
  })
  const template = Template.fromStack(stack)
  const id = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0])
  return { stack, worker, template, id }
}

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true })
})

describe('Construct: QueueWorker', () => {
  it('makes the queue lms-<id> with a visibility timeout six times the function timeout', () => {
    // Act
    const { template } = synth({ timeout: Duration.seconds(45) })

    // Assess
    expect(visibilityTimeoutFor(Duration.seconds(30)).toSeconds()).toBe(180)
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 45 })
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'lms-jobs', VisibilityTimeout: 270 })
  })

  it('moves a message to the dead-letter queue lms-<id>-dlq after 5 receives, kept 14 days, both encrypted and TLS only', () => {
    // Act
    const { worker, template, id } = synth()

    // Assess
    template.resourceCountIs('AWS::SQS::Queue', 2)
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'lms-jobs-dlq',
      MessageRetentionPeriod: 14 * 86_400,
      SqsManagedSseEnabled: true,
    })
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'lms-jobs',
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [id(worker.deadLetterQueue), 'Arn'] },
        maxReceiveCount: 5,
      },
      SqsManagedSseEnabled: true,
    })
    for (const queue of [worker.queue, worker.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      })
    }
  })

  it('feeds the function from the queue in batches of 10, reporting failures per message', () => {
    // Act
    const { worker, template, id } = synth()

    // Assess
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1)
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [id(worker.queue), 'Arn'] },
      FunctionName: { Ref: id(worker.fn) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    })
  })

  it('caps the event source at DEFAULT_WORKER_CONCURRENCY concurrent invocations, or at the one given', () => {
    // Act
    const byDefault = synth()
    const given = synth({ maxConcurrency: 3 })

    // Assess
    byDefault.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: DEFAULT_WORKER_CONCURRENCY },
    })
    given.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 3 },
    })
  })

  it('takes a batch size and a receive count', () => {
    // Act
    const { template } = synth({ batchSize: 1, maxReceiveCount: 3 })

    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1 })
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'lms-jobs',
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }),
    })
  })

  it('gives a worker that queues its own next attempts its queue URL and the right to send there only', () => {
    // Act
    const plain = synth()
    const own = synth({ ownQueueUrlVariable: 'LMS_JOBS_QUEUE_URL' })

    // Assess
    const sends = (t: Template) =>
      Object.values(t.findResources('AWS::IAM::Policy')).flatMap((p) =>
        (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).filter(
          (s) => [s.Action].flat().includes('sqs:SendMessage'),
        ),
      )
    expect(sends(plain.template)).toEqual([])
    expect(sends(own.template).map((s) => s.Resource)).toEqual([
      { 'Fn::GetAtt': [own.id(own.worker.queue), 'Arn'] },
    ])
    own.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          LMS_TABLE_NAME: 'table',
          LMS_JOBS_QUEUE_URL: { Ref: own.id(own.worker.queue) },
        }),
      },
    })
  })

  it('makes its queues next to it, so their logical ids do not depend on the construct', () => {
    // Act
    const { stack, worker } = synth()

    // Assess
    expect(worker.queue.node.scope).toBe(stack)
    expect(worker.queue.node.id).toBe('jobsQueue')
    expect(worker.deadLetterQueue.node.id).toBe('jobsDlq')
  })
})
