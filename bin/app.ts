/** The CDK app: `npx cdk synth` (offline) and `cdk deploy`. Settings come from context (cdk.json or -c). */
import { App } from 'aws-cdk-lib'
import { LmsStack } from '../lib/lms-stack.ts'

const app = new App()
const ctx = (name: string): string | undefined => {
  const v: unknown = app.node.tryGetContext(name)
  return typeof v === 'string' && v.trim() ? v.trim() : undefined
}

new LmsStack(app, ctx('stackName') ?? 'Lms', {
  serviceHost: ctx('serviceHost') ?? 'lms.example.com',
  certificateArn: ctx('certificateArn'),
  corporateOrigin: ctx('corporateOrigin') ?? 'https://www.example.com',
  mailFrom: ctx('mailFrom'),
  operatorEmail: ctx('operatorEmail'),
})
