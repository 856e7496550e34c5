/**
 * cdk-nag on LmsStack: the AWS Solutions and Serverless packs find nothing the code has not
 * acknowledged with a reason. cdk-nag 3 reports through CDK's validation plugins (the `Validations`
 * API) rather than construct annotations, so the packs are run on the stack directly; bin/app.ts
 * registers the same packs, so `cdk synth` fails on the same findings.
 */
import { App, Stack, Validations } from 'aws-cdk-lib'
import { Queue } from 'aws-cdk-lib/aws-sqs'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { LmsStack } from '../../../lib/lms-stack.ts'
import { nagPacks, unacknowledgedFindings } from '../../../lib/nag.ts'

const outdirs: string[] = []

function testApp(): App {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  outdirs.push(app.outdir)
  return app
}

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true })
})

describe('Function: unacknowledgedFindings', () => {
  it('finds nothing unacknowledged in LmsStack, with its own certificate or an imported one', () => {
    // Prepare
    const props = { serviceHost: 'lms.example.org', corporateOrigin: 'https://www.example.org' }
    const own = new LmsStack(testApp(), 'Test', props)
    const imported = new LmsStack(testApp(), 'Test', {
      ...props,
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
      alarmEmail: 'oncall@example.org',
    })

    // Act
    const findings = [...unacknowledgedFindings(own), ...unacknowledgedFindings(imported)]

    // Assess
    expect(findings).toEqual([])
  })

  it('runs both packs, and reports what nobody acknowledged (a bare queue)', () => {
    // Prepare
    const stack = new Stack(testApp(), 'Bare')
    new Queue(stack, 'Bare')

    // Act
    const rules = unacknowledgedFindings(stack).map((f) => f.rule)

    // Assess
    expect(nagPacks().map((p) => p.readPackName)).toEqual(['AwsSolutions', 'Serverless'])
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']))
  })

  it('lets an acknowledgement with a reason silence exactly its rule on its construct', () => {
    // Prepare
    const stack = new Stack(testApp(), 'Acknowledged')
    const queue = new Queue(stack, 'Bare')
    const before = unacknowledgedFindings(stack).map((f) => f.rule)

    // Act
    Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'a test of the mechanism' })
    const after = unacknowledgedFindings(stack).map((f) => f.rule)

    // Assess
    expect(before).toContain('AwsSolutions-SQS3')
    expect(after).not.toContain('AwsSolutions-SQS3')
    expect(after).toHaveLength(before.length - 1)
  })
})
