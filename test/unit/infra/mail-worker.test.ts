/**
 * E-mail in the synthesized stack: the notifications worker behind its queue, its SES
 * configuration set, and a grant to send from the sender identity with that set only.
 */
import { App, type CfnElement } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { LmsStack } from '../../../lib/lms-stack.ts'
import type { QueueWorker } from '../../../lib/queue-worker.ts'
import { MAIL_CLAIM_LEASE_MS } from '../../../shared/store/deliveries/mail-store.ts'

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const stack = new LmsStack(app, 'Test', {
  serviceHost: 'lms.example.org',
  corporateOrigin: 'https://www.example.org',
  certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
  mailFrom: 'LMS <no-reply@mail.example.org>',
  operatorEmail: 'ops@example.org',
})
const template = Template.fromStack(stack)
afterAll(() => rmSync(app.outdir, { recursive: true, force: true }))

const logicalId = (element: unknown) => stack.getLogicalId(element as CfnElement)
const worker = stack.node.findChild('notifications') as QueueWorker
const workerFnId = logicalId(worker.fn.node.defaultChild)

interface Statement {
  readonly Action?: string | readonly string[]
  readonly Resource?: unknown
}

/** Every statement attached to the role of the function `fnId`. */
function statementsOf(fnId: string): Statement[] {
  const roleId: unknown =
    template.findResources('AWS::Lambda::Function')[fnId]?.Properties?.Role?.['Fn::GetAtt']?.[0]
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as { Ref: unknown }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
}
const actions = (s: Statement) => (typeof s.Action === 'string' ? [s.Action] : (s.Action ?? []))

describe('Construct: the notifications worker and SES', () => {
  it('creates the SES configuration set, with the account suppression list for bounces and complaints', () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSet', {
      Name: 'lms-mail',
      SuppressionOptions: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
    })
  })

  it('runs the worker on its own queue with SES as the transport, the sender and the configuration set', () => {
    const fn = template.findResources('AWS::Lambda::Function')[workerFnId]
    const mappings = template.findResources('AWS::Lambda::EventSourceMapping', {
      Properties: { EventSourceArn: { 'Fn::GetAtt': [logicalId(worker.queue.node.defaultChild), 'Arn'] } },
    })

    expect(fn?.Properties.Environment.Variables).toMatchObject({
      LMS_MAIL_TRANSPORT: 'ses',
      LMS_MAIL_FROM: 'LMS <no-reply@mail.example.org>',
      LMS_SES_CONFIGURATION_SET: { Ref: expect.stringMatching(/^MailConfigurationSet/) },
    })
    expect(Object.values(mappings).map((m) => m.Properties.FunctionName)).toEqual([{ Ref: workerFnId }])
    // A claim outlives its worker and runs out before SQS hands the message out again.
    const timeoutMs = Number(fn?.Properties.Timeout) * 1000
    const visibilityMs =
      Number(
        template.findResources('AWS::SQS::Queue')[logicalId(worker.queue.node.defaultChild)]?.Properties
          .VisibilityTimeout,
      ) * 1000
    expect(timeoutMs).toBeLessThan(MAIL_CLAIM_LEASE_MS)
    expect(MAIL_CLAIM_LEASE_MS).toBeLessThan(visibilityMs)
  })

  it('lets the worker send e-mail from the sender identity with the configuration set, and nothing else of SES', () => {
    const ses = statementsOf(workerFnId).filter((s) => actions(s).some((a) => a.startsWith('ses:')))
    const elsewhere = Object.keys(template.findResources('AWS::Lambda::Function'))
      .filter((id) => id !== workerFnId)
      .flatMap(statementsOf)
      .filter((s) => actions(s).some((a) => a.startsWith('ses:')))

    expect(ses).toHaveLength(1)
    expect(actions(ses[0] ?? {})).toEqual(['ses:SendEmail'])
    expect(JSON.stringify(ses[0]?.Resource)).toContain(':identity/mail.example.org')
    expect(JSON.stringify(ses[0]?.Resource)).toContain(':configuration-set/')
    expect(JSON.stringify(ses[0]?.Resource)).not.toContain('*')
    expect(elsewhere).toEqual([])
  })

  it('lets the relay and the sweeper queue notifications, and gives the contact route the operators’ address', () => {
    const queueArn = { 'Fn::GetAtt': [logicalId(worker.queue.node.defaultChild), 'Arn'] }
    const functions = template.findResources('AWS::Lambda::Function')
    const senders = Object.keys(functions).filter((id) =>
      statementsOf(id).some(
        (s) =>
          actions(s).includes('sqs:SendMessage') && JSON.stringify(s.Resource) === JSON.stringify(queueArn),
      ),
    )
    const publicFn = functions[logicalId(stack.functions.get('public')?.node.defaultChild)]

    expect(senders.sort()).toEqual(
      Object.keys(functions)
        .filter((id) => /outboxrelay|outboxsweeper/i.test(id))
        .sort(),
    )
    expect(senders).toHaveLength(2)
    expect(publicFn?.Properties.Environment.Variables.LMS_OPERATOR_EMAIL).toBe('ops@example.org')
    for (const id of senders) {
      expect(Object.keys(functions[id]?.Properties.Environment.Variables)).toContain(
        'LMS_NOTIFICATIONS_QUEUE_URL',
      )
    }
  })
})
