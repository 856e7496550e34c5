/** The CDK app: `npx cdk synth` (offline) and `cdk deploy`. Settings come from context (cdk.json or -c). */
import { App, Validations } from 'aws-cdk-lib'
import { defaultApiThrottle, LmsStack, type WorkerQueue } from '../lib/lms-stack.ts'
import { nagPacks } from '../lib/nag.ts'

const app = new App()
const ctx = (name: string): string | undefined => {
  const v: unknown = app.node.tryGetContext(name)
  return typeof v === 'string' && v.trim() ? v.trim() : undefined
}
/** A positive whole number from context (`-c name=12` gives a string, cdk.json a number). */
const ctxNumber = (name: string): number | undefined => {
  const v: unknown = app.node.tryGetContext(name)
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`Context ${name} must be a positive whole number, not ${String(v)}`)
  return n
}
const workerConcurrency: Partial<Record<WorkerQueue, number>> = {}
for (const queue of ['webhooks', 'xapi', 'notifications', 'exports', 'ags'] as const) {
  const n = ctxNumber(`${queue}Concurrency`)
  if (n !== undefined) workerConcurrency[queue] = n
}

new LmsStack(app, ctx('stackName') ?? 'Lms', {
  serviceHost: ctx('serviceHost') ?? 'lms.example.com',
  certificateArn: ctx('certificateArn'),
  corporateOrigin: ctx('corporateOrigin') ?? 'https://www.example.com',
  mailFrom: ctx('mailFrom'),
  operatorEmail: ctx('operatorEmail'),
  alarmEmail: ctx('alarmEmail'),
  apiThrottle: {
    rateLimit: ctxNumber('apiRateLimit') ?? defaultApiThrottle.rateLimit,
    burstLimit: ctxNumber('apiBurstLimit') ?? defaultApiThrottle.burstLimit,
  },
  workerConcurrency,
})

// `cdk synth` fails on any finding of these packs that the code has not acknowledged with a reason.
Validations.of(app).addPlugins(...nagPacks())
