/**
 * The scheduled jobs in the synthesized LmsStack: one EventBridge rule per job of the schedule, at
 * its period, each invoking the one jobs Lambda with the job's name and the rule's time.
 */
import { App } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { LmsStack } from '../../../lib/lms-stack.ts'
import { jobNames, jobSchedule } from '../../../shared/jobs/schedule.ts'

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
const stack = new LmsStack(app, 'Test', {
  serviceHost: 'lms.example.org',
  corporateOrigin: 'https://www.example.org',
  certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
})
const template = Template.fromStack(stack)
afterAll(() => rmSync(app.outdir, { recursive: true, force: true }))

const jobRules = () =>
  Object.values(template.findResources('AWS::Events::Rule')).filter((r) =>
    String(r.Properties?.Description ?? '').startsWith('Runs the '),
  )

describe('Construct: ScheduledJobs', () => {
  it('runs every job of the schedule at its period, each with its name and the scheduled time', () => {
    const rules = jobRules()
    expect(rules).toHaveLength(jobNames.length)
    for (const job of jobNames) {
      const rule = rules.find((r) => r.Properties.Description === `Runs the ${job} job`)
      const period =
        jobSchedule[job].everyMinutes === 24 * 60 ? '1 day' : `${jobSchedule[job].everyMinutes} minutes`
      expect(rule?.Properties.ScheduleExpression).toBe(`rate(${period})`)
      const target = rule?.Properties.Targets[0]
      expect(target.InputTransformer.InputPathsMap).toEqual({ time: '$.time' })
      expect(JSON.parse(target.InputTransformer.InputTemplate.replace('<time>', '"T"'))).toEqual({
        job,
        at: 'T',
      })
      expect(target.RetryPolicy).toMatchObject({ MaximumRetryAttempts: 2 })
    }
  })

  it('invokes one jobs function that may write the table and runs for up to 10 minutes', () => {
    const targets = new Set(jobRules().map((r) => JSON.stringify(r.Properties.Targets[0].Arn)))
    expect(targets.size).toBe(1)
    const fnId = JSON.parse([...targets][0] ?? '{}')['Fn::GetAtt'][0] as string
    const fn = template.findResources('AWS::Lambda::Function')[fnId]
    expect(fn?.Properties.Timeout).toBe(600)
    expect(fn?.Properties.Environment.Variables).toHaveProperty('LMS_TABLE_NAME')
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
    })
    const writes = Object.values(template.findResources('AWS::IAM::Policy')).some(
      (p) =>
        JSON.stringify(p.Properties.PolicyDocument).includes('dynamodb:UpdateItem') &&
        JSON.stringify(p.Properties.Roles).includes(fn?.Properties.Role['Fn::GetAtt'][0]),
    )
    expect(writes).toBe(true)
  })
})
