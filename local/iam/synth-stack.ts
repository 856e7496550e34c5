/**
 * Synthesizes the product's stack (without bundling the functions: the grants and environment do
 * not depend on the bundles) and keeps what the local IAM check reads from it.
 */
import { App, type CfnElement, type Stack } from 'aws-cdk-lib'
import { rmSync } from 'node:fs'
import type { IConstruct } from 'constructs'
import { LmsStack } from '../../lib/lms-stack.ts'
import type { BucketRole, SynthesizedStack } from './function-policies.ts'

/** The props the local stack stands for: its host, and an operator address (the contact route). */
export const localStackProps = {
  serviceHost: 'localhost',
  corporateOrigin: 'https://www.example.com',
  operatorEmail: 'operators@localhost',
} as const

const logicalId = (stack: Stack, c: IConstruct) => stack.getLogicalId(c.node.defaultChild as CfnElement)

/** What the check reads of a stack already synthesized (`template` is its template). */
export function synthesizedFrom(stack: LmsStack, template: unknown): SynthesizedStack {
  const buckets: Record<BucketRole, string> = {
    exports: logicalId(stack, stack.node.findChild('Exports')),
    content: logicalId(stack, stack.node.findChild('Content')),
    accessLogs: logicalId(stack, stack.node.findChild('AccessLogs')),
  }
  const functions = Object.fromEntries(
    [...stack.namedFunctions].map(([name, fn]) => [name, logicalId(stack, fn)]),
  )
  return { template: template as SynthesizedStack['template'], functions, buckets }
}

export function synthesize(): SynthesizedStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  try {
    const stack = new LmsStack(app, 'Lms', localStackProps)
    return synthesizedFrom(stack, app.synth().getStackByName(stack.stackName).template)
  } finally {
    rmSync(app.outdir, { recursive: true, force: true })
  }
}
