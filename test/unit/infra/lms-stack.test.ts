/**
 * Property assertions on the synthesized LmsStack template. The stacks are built with the
 * `aws:cdk:bundling-stacks` context set to no stack, so NodejsFunction skips esbuild and the file
 * runs in about a second.
 */
import { App, type CfnElement } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { LmsStack, type LmsStackProps } from '../../../lib/lms-stack.ts'
import { tableActions } from '../../../lib/grants.ts'
import type { QueueWorker } from '../../../lib/queue-worker.ts'
import { functionPolicies, templateResolver, type LocalNames } from '../../../local/iam/function-policies.ts'
import { isAllowed, type AllowStatement } from '../../../local/iam/policy-evaluator.ts'
import { synthesizedFrom } from '../../../local/iam/synth-stack.ts'
import { CLAIM_LEASE_MS } from '../../../shared/domain/attempts.ts'
import { fallbackGroup, routeGroups, routeKey, routes, type RouteGroup } from '../../../shared/routes.ts'
import { deadLetterSuffix, queueNames, tableSchema } from '../../../shared/store/core/table-schema.ts'

const serviceHost = 'lms.example.org'
const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/abc'
const baseProps: LmsStackProps = { serviceHost, corporateOrigin: 'https://www.example.org' }

interface Synthesized {
  readonly stack: LmsStack
  readonly template: Template
}

const outdirs: string[] = []
const cache = new Map<string, Synthesized>()

/** Builds (once per variant) and synthesizes the stack without bundling the functions. */
function synth(variant: 'withCertificateArn' | 'withoutCertificateArn'): Synthesized {
  const cached = cache.get(variant)
  if (cached) return cached
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } })
  outdirs.push(app.outdir)
  const props = variant === 'withCertificateArn' ? { ...baseProps, certificateArn } : baseProps
  const stack = new LmsStack(app, 'Test', props)
  const result = { stack, template: Template.fromStack(stack) }
  cache.set(variant, result)
  return result
}

const logicalId = (stack: LmsStack, element: unknown): string => stack.getLogicalId(element as CfnElement)

const functionId = (stack: LmsStack, group: RouteGroup): string => {
  const fn = stack.functions.get(group)
  if (!fn) throw new Error(`no function for route group ${group}`)
  return logicalId(stack, fn.node.defaultChild)
}

interface Statement {
  readonly Effect?: string
  readonly Action?: string | readonly string[]
  readonly Resource?: unknown
}
interface PolicyDocument {
  readonly Statement?: readonly Statement[]
}

/** Every statement Allowed to the function's execution role (attached AWS::IAM::Policy + inline policies). */
function allowedStatements(template: Template, stack: LmsStack, group: RouteGroup): Statement[] {
  const fnId = functionId(stack, group)
  const fn = template.findResources('AWS::Lambda::Function')[fnId]
  const roleId: unknown = fn?.Properties?.Role?.['Fn::GetAtt']?.[0]
  if (typeof roleId !== 'string') throw new Error(`function ${fnId} has no role of this stack`)

  const documents: PolicyDocument[] = []
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const roles: unknown[] = policy.Properties?.Roles ?? []
    if (roles.some((r) => (r as { Ref?: unknown }).Ref === roleId)) {
      documents.push(policy.Properties.PolicyDocument)
    }
  }
  const role = template.findResources('AWS::IAM::Role')[roleId]
  for (const inline of (role?.Properties?.Policies ?? []) as { PolicyDocument: PolicyDocument }[]) {
    documents.push(inline.PolicyDocument)
  }

  return documents.flatMap((d) => d.Statement ?? []).filter((s) => s.Effect === 'Allow')
}

const actionsOf = (s: Statement): readonly string[] =>
  typeof s.Action === 'string' ? [s.Action] : (s.Action ?? [])

/** Every action Allowed to the function's execution role. */
function allowedActions(template: Template, stack: LmsStack, group: RouteGroup): string[] {
  return allowedStatements(template, stack, group).flatMap(actionsOf)
}

/** The logical ids of the secrets the function's role may read (`*` for any). */
function secretsReadBy(template: Template, stack: LmsStack, group: RouteGroup): string[] {
  return allowedStatements(template, stack, group)
    .filter((s) => allows(actionsOf(s), 'secretsmanager:GetSecretValue'))
    .flatMap((s) => (Array.isArray(s.Resource) ? (s.Resource as unknown[]) : [s.Resource]))
    .map((r) => (typeof r === 'object' && r !== null && 'Ref' in r ? String(r.Ref) : String(r)))
}

/** True when one of the actions (possibly a wildcard such as `dynamodb:*`) allows `wanted`. */
const allows = (actions: readonly string[], wanted: string): boolean =>
  actions.some((a) =>
    new RegExp(`^${a.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i').test(wanted),
  )

const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']
/** Served by the static stack: no store, so no table. */
const tablelessGroups: readonly RouteGroup[] = ['plans', 'docs', 'fallback']
const readOnlyGroups: readonly RouteGroup[] = ['billing']

afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true })
})

describe('Construct: LmsStack', () => {
  it('skips esbuild bundling in this test app', () => {
    // Prepare
    const variant = 'withCertificateArn'

    // Act
    const { stack } = synth(variant)

    // Assess
    expect(stack.bundlingRequired).toBe(false)
  })

  it('creates one global table with the pk/sk keys and the GSIs (keys and projections) of the table schema', () => {
    // Prepare
    const { template } = synth('withCertificateArn')
    // Each attribute defined once: pos1 is keyed on the table's own pk.
    const keyNames = [
      ...new Set([
        tableSchema.partitionKey,
        tableSchema.sortKey,
        ...tableSchema.globalIndexes.flatMap((i) => [i.pk, i.sk]),
      ]),
    ]

    // Act
    const table = Match.objectLike({
      KeySchema: [
        { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith(keyNames.map((n) => ({ AttributeName: n, AttributeType: 'S' }))),
      GlobalSecondaryIndexes: tableSchema.globalIndexes.map((i) =>
        Match.objectLike({
          IndexName: i.name,
          KeySchema: [
            { AttributeName: i.pk, KeyType: 'HASH' },
            { AttributeName: i.sk, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: i.projection.type },
        }),
      ),
    })

    // Assess
    expect(tableSchema.partitionKey).toBe('pk')
    expect(tableSchema.sortKey).toBe('sk')
    expect(tableSchema.globalIndexes.map((i) => i.name)).toEqual([
      'gsi1',
      'gsi2',
      'gsi3',
      'gsi4',
      'gsi5',
      'rpt1',
      'act1',
      'act2',
      'rpt3',
      'rpt4',
      'rpt5',
      'rpt6',
      'rpt7',
      'pos1',
    ])
    // The position index skips deep pages over entries that hold nothing but keys; so does the
    // activity index, whose sort value carries what the user activity report reads.
    expect(tableSchema.globalIndexes.find((i) => i.name === 'pos1')?.projection).toEqual({
      type: 'KEYS_ONLY',
    })
    for (const name of ['act1', 'act2', 'rpt5', 'rpt6', 'rpt7']) {
      expect(tableSchema.globalIndexes.find((i) => i.name === name)?.projection, name).toEqual({
        type: 'KEYS_ONLY',
      })
    }
    // A course's enrollments by creation hold only what a course tally reads.
    expect(tableSchema.globalIndexes.find((i) => i.name === 'rpt4')?.projection).toEqual({
      type: 'INCLUDE',
      attributes: ['status', 'completed_at', 'enrolled_at', 'quiz_attempts'],
    })
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1)
    template.resourceCountIs('AWS::DynamoDB::Table', 0)
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', table)
  })

  it('enables PITR, TTL on `ttl`, a NEW_AND_OLD_IMAGES stream and deletion protection on the table', () => {
    // Prepare
    const { template } = synth('withCertificateArn')

    // Act
    const expected = {
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: tableSchema.streamView },
      Replicas: Match.arrayWith([
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ]),
    }

    // Assess
    expect(tableSchema.ttlAttribute).toBe('ttl')
    expect(tableSchema.streamView).toBe('NEW_AND_OLD_IMAGES')
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      Properties: Match.objectLike(expected),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    })
  })

  it('creates one Node.js 24 arm64 Lambda per route group and worker, the table name in each but the static route groups', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const tableId = logicalId(stack, stack.table.node.defaultChild)
    const expected = {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({
          LMS_SERVICE_HOST: serviceHost,
          NODE_OPTIONS: Match.stringLikeRegexp('--enable-source-maps'),
        }),
      },
    }

    // Act
    const matching = template.findResources('AWS::Lambda::Function', {
      Properties: Match.objectLike(expected),
    })
    const withTable = Object.keys(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: Match.objectLike({ LMS_TABLE_NAME: { Ref: tableId } }) } },
      }),
    )

    // Assess
    expect(new Set(routeGroups).size).toBe(routeGroups.length)
    expect([...stack.functions.keys()].sort()).toEqual([...routeGroups].sort())
    const workers = [
      'outbox-relay',
      'outbox-sweeper',
      'webhook-delivery',
      'xapi-delivery',
      'notification-delivery',
      'webhook-replay',
      'scheduled-jobs',
      'export-build',
      'migrations',
      'ags-score',
    ]
    template.resourceCountIs('AWS::Lambda::Function', routeGroups.length + workers.length)
    expect(Object.keys(matching)).toHaveLength(routeGroups.length + workers.length)
    expect(Object.keys(matching)).toEqual(
      expect.arrayContaining(routeGroups.map((g) => functionId(stack, g))),
    )
    expect(withTable).toHaveLength(routeGroups.length + workers.length - tablelessGroups.length)
    for (const group of tablelessGroups) expect(withTable, group).not.toContain(functionId(stack, group))
  })

  it('wires the relay to the table stream, the sweeper to a schedule and the webhook worker to its queue', () => {
    // Prepare
    const { template } = synth('withCertificateArn')

    // Assess
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      FilterCriteria: {
        Filters: [
          { Pattern: Match.stringLikeRegexp('"eventName":\\["INSERT"\\].*"type":\\{"S":\\["event"\\]') },
          {
            Pattern: Match.stringLikeRegexp('"eventName":\\["INSERT"\\].*"type":\\{"S":\\["notification"\\]'),
          },
        ],
      },
    })
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: Match.anyValue(),
    })
    const queueId = (name: string) =>
      Object.entries(template.findResources('AWS::SQS::Queue')).find(
        ([, q]) => (q as { Properties: { QueueName?: string } }).Properties.QueueName === name,
      )?.[0]
    for (const name of ['lms-webhooks', 'lms-xapi', 'lms-notifications', 'lms-ags']) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        EventSourceArn: { 'Fn::GetAtt': [queueId(name), 'Arn'] },
      })
    }
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' })
    // The key of secrets at rest, the pseudonyms' key, the billing secret and the LTI tool-key seal.
    template.resourceCountIs('AWS::SecretsManager::Secret', 4)
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: 'secretsmanager:GetSecretValue' })]),
      },
    })
  })

  it('creates an API route for every row of the route table, integrated with the row group Lambda', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const apiId = logicalId(stack, stack.api.node.defaultChild)
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration')

    for (const route of routes) {
      // Act
      const found = template.findResources('AWS::ApiGatewayV2::Route', {
        Properties: { RouteKey: routeKey(route), ApiId: { Ref: apiId } },
      })

      // Assess
      expect(routeKey(route)).toBe(`${route.method} ${route.path}`)
      const entries = Object.values(found)
      expect(entries, `route ${routeKey(route)}`).toHaveLength(1)
      const target: unknown = entries[0]?.Properties?.Target?.['Fn::Join']?.[1]?.[1]?.Ref
      expect(typeof target, `target of ${routeKey(route)}`).toBe('string')
      expect(integrations[target as string]?.Properties, `integration of ${routeKey(route)}`).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: { 'Fn::GetAtt': [functionId(stack, route.group), 'Arn'] },
      })
    }
    // One route per row plus $default: nothing is routed outside the table.
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1)
  })

  it('sends the $default route to the fallback Lambda', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')

    // Act
    const found = Object.values(
      template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: '$default' } }),
    )
    const target: unknown = found[0]?.Properties?.Target?.['Fn::Join']?.[1]?.[1]?.Ref

    // Assess
    expect(found).toHaveLength(1)
    expect(typeof target).toBe('string')
    expect(
      template.findResources('AWS::ApiGatewayV2::Integration')[target as string]?.Properties,
    ).toMatchObject({
      IntegrationUri: { 'Fn::GetAtt': [functionId(stack, fallbackGroup), 'Arn'] },
    })
  })

  it('serves the API on the wildcard tenant domain with the given certificate', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const apiId = logicalId(stack, stack.api.node.defaultChild)

    // Act
    const domains = template.findResources('AWS::ApiGatewayV2::DomainName', {
      Properties: {
        DomainName: `*.${serviceHost}`,
        DomainNameConfigurations: [Match.objectLike({ CertificateArn: certificateArn })],
      },
    })
    const [domainId] = Object.keys(domains)

    // Assess
    expect(domainId).toBeDefined()
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1)
    template.resourceCountIs('AWS::CertificateManager::Certificate', 0)
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      ApiId: { Ref: apiId },
      DomainName: { Ref: domainId },
    })
  })

  it('outputs where the wildcard DNS record points: the regional domain name and its hosted zone', () => {
    // Prepare
    const { template } = synth('withCertificateArn')
    const [domainId] = Object.keys(template.findResources('AWS::ApiGatewayV2::DomainName'))

    // Act
    const outputs = template.findOutputs('*')

    // Assess
    expect(outputs.TenantDomainTarget?.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] })
    expect(outputs.TenantDomainHostedZoneId?.Value).toEqual({
      'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'],
    })
  })

  it('disables the default execute-api endpoint, so a request cannot bypass the tenant domain', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const apiId = logicalId(stack, stack.api.node.defaultChild)

    // Act
    const api = template.findResources('AWS::ApiGatewayV2::Api')[apiId]

    // Assess
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1)
    expect(api?.Properties).toMatchObject({ DisableExecuteApiEndpoint: true })
  })

  it('creates a DNS-validated certificate for the wildcard domain when no certificateArn is given', () => {
    // Prepare
    const variant = 'withoutCertificateArn'

    // Act
    const { template } = synth(variant)
    const certificates = template.findResources('AWS::CertificateManager::Certificate', {
      Properties: { DomainName: `*.${serviceHost}`, ValidationMethod: 'DNS' },
    })
    const [certificateId] = Object.keys(certificates)

    // Assess
    template.resourceCountIs('AWS::CertificateManager::Certificate', 1)
    expect(certificateId).toBeDefined()
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: `*.${serviceHost}`,
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: { Ref: certificateId } })],
    })
  })

  it('gives each worker queue a dead-letter queue after 5 receives', () => {
    // Prepare
    const { template } = synth('withCertificateArn')

    for (const name of queueNames) {
      // Act
      const dlqs = template.findResources('AWS::SQS::Queue', {
        Properties: { QueueName: `lms-${name}${deadLetterSuffix}` },
      })
      const [dlqId] = Object.keys(dlqs)

      // Assess
      expect(dlqId, `dead-letter queue of ${name}`).toBeDefined()
      expect(dlqs[dlqId as string]?.Properties?.RedrivePolicy).toBeUndefined()
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `lms-${name}`,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      })
    }
    expect(queueNames).toHaveLength(6)
    const redriven = template.findResources('AWS::SQS::Queue', {
      Properties: { RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }) },
    })
    expect(Object.keys(redriven)).toHaveLength(6)
    template.resourceCountIs('AWS::SQS::Queue', 12)
  })

  it('keeps every queue under the logical id a deployed stack has it (a named queue cannot be replaced)', () => {
    // Prepare
    const { template } = synth('withCertificateArn')

    // Act
    const idsByName = Object.fromEntries(
      Object.entries(template.findResources('AWS::SQS::Queue')).map(([id, q]) => [
        q.Properties.QueueName,
        id,
      ]),
    )

    // Assess
    expect(idsByName).toEqual({
      'lms-exports': 'exportsQueue3B6FD988',
      'lms-exports-dlq': 'exportsDlqC1053C61',
      'lms-webhooks': 'webhooksQueue80C6885D',
      'lms-webhooks-dlq': 'webhooksDlq10FA2BDF',
      'lms-xapi': 'xapiQueue287A5F4F',
      'lms-xapi-dlq': 'xapiDlqEA5F1EA9',
      'lms-notifications': 'notificationsQueue8852CCBB',
      'lms-notifications-dlq': 'notificationsDlq67B24828',
      'lms-replays': 'replaysQueue59F886BB',
      'lms-replays-dlq': 'replaysDlq926BBB05',
      'lms-ags': 'agsQueueB99AE772',
      'lms-ags-dlq': 'agsDlqFBF2209F',
    })
  })

  it('lets a claimed attempt outlast its worker and expire before SQS hands its message out again', () => {
    // Prepare
    const { template } = synth('withCertificateArn')
    const functions = template.findResources('AWS::Lambda::Function')
    const queues = template.findResources('AWS::SQS::Queue')

    for (const name of ['lms-webhooks', 'lms-xapi']) {
      // Act
      const [queueId, queue] = Object.entries(queues).find(([, q]) => q.Properties.QueueName === name) ?? []
      const mappings = Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        }),
      )
      const fn = functions[mappings[0]?.Properties.FunctionName.Ref]

      // Assess
      expect(mappings, name).toHaveLength(1)
      const timeoutMs = Number(fn?.Properties.Timeout) * 1000
      const visibilityMs = Number(queue?.Properties.VisibilityTimeout) * 1000
      expect(timeoutMs, name).toBe(30_000)
      expect(visibilityMs, name).toBe(6 * timeoutMs)
      expect(timeoutMs, name).toBeLessThan(CLAIM_LEASE_MS)
      expect(CLAIM_LEASE_MS, name).toBeLessThan(visibilityMs)
    }
  })

  it('lets each delivery worker send to its own queue only, and read the key of secrets at rest', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const queueArn = (name: string) => {
      const id = Object.entries(template.findResources('AWS::SQS::Queue')).find(
        ([, q]) => q.Properties.QueueName === name,
      )?.[0]
      return { 'Fn::GetAtt': [id, 'Arn'] }
    }
    const secretId = Object.keys(template.findResources('AWS::SecretsManager::Secret')).find((id) =>
      id.startsWith('EncryptionSecret'),
    )

    for (const [queue, variable] of [
      ['webhooks', 'LMS_WEBHOOKS_QUEUE_URL'],
      ['xapi', 'LMS_XAPI_QUEUE_URL'],
    ] as const) {
      // Act
      const worker = stack.node.findChild(queue) as QueueWorker
      const fnId = logicalId(stack, worker.fn.node.defaultChild)
      const fn = template.findResources('AWS::Lambda::Function')[fnId]
      const roleId: unknown = fn?.Properties?.Role?.['Fn::GetAtt']?.[0]
      const statements = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as { Ref: unknown }[]).some((r) => r.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
      const sendsTo = statements.filter((s) => allows(actionsOf(s), 'sqs:SendMessage')).map((s) => s.Resource)
      const readsSecret = statements.filter((s) => allows(actionsOf(s), 'secretsmanager:GetSecretValue'))

      // Assess
      expect(sendsTo, queue).toEqual([queueArn(`lms-${queue}`)])
      expect(
        readsSecret.map((s) => s.Resource),
        queue,
      ).toEqual([{ Ref: secretId }])
      expect(Object.keys(fn?.Properties.Environment.Variables), queue).toEqual(
        expect.arrayContaining([variable, 'LMS_ENCRYPTION_SECRET_ARN', 'LMS_TABLE_NAME']),
      )
    }
  })

  it('lets the AGS score worker send to its own queue only and read the LTI tool-key secret only (decision 0050); the relay and sweeper send to its queue', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const queueId = (name: string) =>
      Object.entries(template.findResources('AWS::SQS::Queue')).find(
        ([, q]) => q.Properties.QueueName === name,
      )?.[0]
    const ltiSecret = Object.keys(template.findResources('AWS::SecretsManager::Secret')).find((id) =>
      id.startsWith('LtiToolKeySecret'),
    )
    const statementsOf = (fnId: string) => {
      const fn = template.findResources('AWS::Lambda::Function')[fnId]
      const roleId: unknown = fn?.Properties?.Role?.['Fn::GetAtt']?.[0]
      return Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p.Properties.Roles as { Ref: unknown }[]).some((r) => r.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    }
    const sendsTo = (fnId: string) =>
      statementsOf(fnId)
        .filter((s) => allows(actionsOf(s), 'sqs:SendMessage'))
        .map((s) => s.Resource)

    // Act
    const worker = stack.node.findChild('ags') as QueueWorker
    const fnId = logicalId(stack, worker.fn.node.defaultChild)
    const env = template.findResources('AWS::Lambda::Function')[fnId]?.Properties.Environment.Variables

    // Assess
    expect(sendsTo(fnId)).toEqual([{ 'Fn::GetAtt': [queueId('lms-ags'), 'Arn'] }])
    expect(
      statementsOf(fnId)
        .filter((s) => allows(actionsOf(s), 'secretsmanager:GetSecretValue'))
        .map((s) => s.Resource),
    ).toEqual([{ Ref: ltiSecret }])
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining(['LMS_AGS_QUEUE_URL', 'LMS_LTI_KEY_SECRET_ARN', 'LMS_TABLE_NAME']),
    )
    expect('LMS_ENCRYPTION_SECRET_ARN' in env).toBe(false)
    for (const name of ['outbox-relay', 'outbox-sweeper']) {
      const relayId = logicalId(
        stack,
        (stack.namedFunctions.get(name) as QueueWorker['fn']).node.defaultChild,
      )
      expect(sendsTo(relayId), name).toContainEqual({ 'Fn::GetAtt': [queueId('lms-ags'), 'Arn'] })
    }
  })

  it('blocks all public access to the three buckets (exports, module content, their access logs) and encrypts them', () => {
    // Prepare
    const { template } = synth('withCertificateArn')

    // Act
    const buckets = Object.values(template.findResources('AWS::S3::Bucket')) as {
      Properties: Record<string, unknown>
    }[]

    // Assess
    expect(buckets).toHaveLength(3)
    for (const bucket of buckets) {
      expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      })
      expect(bucket.Properties.BucketEncryption).toBeDefined()
    }
    template.hasOutput('ContentBucketName', {})
  })

  it('lets only the writing route groups write to the table, and the static route groups not even read it (least privilege)', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const writers = routeGroups.filter((g) => !readOnlyGroups.includes(g) && !tablelessGroups.includes(g))

    for (const group of tablelessGroups) {
      // Act
      const actions = allowedActions(template, stack, group)

      // Assess
      expect(
        actions.filter((a) => a.startsWith('dynamodb:')),
        `${group} reaches the table`,
      ).toEqual([])
    }

    for (const group of readOnlyGroups) {
      // Act
      const actions = allowedActions(template, stack, group)

      // Assess
      expect(allows(actions, 'dynamodb:Query'), `${group} reads the table`).toBe(true)
      expect(allows(actions, 'dynamodb:GetItem'), `${group} reads the table`).toBe(true)
      for (const write of writeActions) expect(allows(actions, write), `${group} may ${write}`).toBe(false)
    }

    expect(writers).toContain('users')
    for (const group of writers) {
      // Act
      const actions = allowedActions(template, stack, group)

      // Assess
      for (const write of writeActions) expect(allows(actions, write), `${group} may ${write}`).toBe(true)
    }
  })

  it('lets the replay worker read the table, send to the webhooks queue and its own, and read no secret (0048)', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const queueArn = (name: string) => ({
      'Fn::GetAtt': [
        Object.entries(template.findResources('AWS::SQS::Queue')).find(
          ([, q]) => q.Properties.QueueName === name,
        )?.[0],
        'Arn',
      ],
    })

    // Act
    const worker = stack.node.findChild('replays') as QueueWorker
    const fnId = logicalId(stack, worker.fn.node.defaultChild)
    const fn = template.findResources('AWS::Lambda::Function')[fnId]
    const roleId: unknown = fn?.Properties?.Role?.['Fn::GetAtt']?.[0]
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: unknown }[]).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    const sendsTo = statements.filter((s) => allows(actionsOf(s), 'sqs:SendMessage')).map((s) => s.Resource)
    const mapping = Object.values(
      template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: fnId } },
      }),
    )

    // Assess
    expect(sendsTo).toEqual(expect.arrayContaining([queueArn('lms-webhooks'), queueArn('lms-replays')]))
    expect(sendsTo).toHaveLength(2)
    expect(statements.some((s) => allows(actionsOf(s), 'secretsmanager:GetSecretValue'))).toBe(false)
    expect(statements.some((s) => allows(actionsOf(s), 'dynamodb:Query'))).toBe(true)
    for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) {
      expect(
        statements.some((s) => allows(actionsOf(s), write)),
        write,
      ).toBe(false)
    }
    expect(mapping).toHaveLength(1)
    expect(mapping[0]?.Properties).toMatchObject({ BatchSize: 1, ScalingConfig: { MaximumConcurrency: 2 } })
  })

  it('lets the deliveries API queue retries on the webhooks queue, the reports group queue export jobs, the settings group queue replays, and no other route group send anything', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const senders: Partial<Record<RouteGroup, [string, string]>> = {
      webhooks: ['lms-webhooks', 'LMS_WEBHOOKS_QUEUE_URL'],
      reports: ['lms-exports', 'LMS_EXPORTS_QUEUE_URL'],
      integrations: ['lms-replays', 'LMS_REPLAYS_QUEUE_URL'],
    }
    const queueArn = (name: string) => ({
      'Fn::GetAtt': [
        Object.entries(template.findResources('AWS::SQS::Queue')).find(
          ([, q]) => q.Properties.QueueName === name,
        )?.[0],
        'Arn',
      ],
    })

    for (const group of routeGroups) {
      // Act
      const statements = allowedStatements(template, stack, group)
      const env = template.findResources('AWS::Lambda::Function')[functionId(stack, group)] as {
        Properties: { Environment: { Variables: Record<string, unknown> } }
      }

      // Assess
      const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')))
      const own = senders[group]
      expect(
        sqs.map((s) => ({ actions: actionsOf(s), resource: s.Resource })),
        `${group} may send to`,
      ).toEqual(own ? [{ actions: ['sqs:SendMessage'], resource: queueArn(own[0]) }] : [])
      for (const [, variable] of Object.values(senders)) {
        expect(variable in env.Properties.Environment.Variables, `${group} has ${variable}`).toBe(
          own?.[1] === variable,
        )
      }
    }
  })

  it('expires export files after a few days, aborts unfinished uploads, and lets only the export worker write them and the reports group read them', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    // The access-log bucket expires its objects too: the exports bucket is found by its logical id.
    const exportsBucket = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('Exports'),
    )
    const objects = {
      'Fn::Join': ['', [{ 'Fn::GetAtt': [exportsBucket?.[0], 'Arn'] }, '/tenants/*/exports/*']],
    }
    const worker = stack.node.findChild('exports') as QueueWorker
    const workerFn =
      template.findResources('AWS::Lambda::Function')[logicalId(stack, worker.fn.node.defaultChild)]
    const workerRole: unknown = workerFn?.Properties?.Role?.['Fn::GetAtt']?.[0]
    const workerStatements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: unknown }[]).some((r) => r.Ref === workerRole))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    const s3 = (statements: readonly Statement[]) =>
      statements
        .filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')))
        .map((s) => ({ actions: actionsOf(s), resource: s.Resource }))

    // Assess: the bucket
    expect(exportsBucket?.[1].Properties.LifecycleConfiguration.Rules).toEqual([
      { Status: 'Enabled', ExpirationInDays: 3, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
    ])
    // Assess: the worker puts export objects (multipart included) and nothing else of S3
    expect(s3(workerStatements)).toEqual([
      { actions: ['s3:PutObject', 's3:AbortMultipartUpload'], resource: objects },
    ])
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack, worker.queue.node.defaultChild), 'Arn'] },
    })
    const queue = template.findResources('AWS::SQS::Queue')[logicalId(stack, worker.queue.node.defaultChild)]
    expect(workerFn?.Properties.Timeout).toBe(240)
    expect(queue?.Properties.VisibilityTimeout).toBe(6 * 240)
    expect(Object.keys(workerFn?.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['LMS_EXPORTS_BUCKET', 'LMS_TABLE_NAME']),
    )
    // Assess: the worker runs with the heap flags the export bench measured (lib/export-worker-heap.ts)
    expect(workerFn?.Properties.Environment.Variables.NODE_OPTIONS).toBe(
      '--enable-source-maps --max-semi-space-size=16',
    )
    // Assess: the reports group reads export objects only; no other route group touches them
    expect(s3(allowedStatements(template, stack, 'reports'))).toEqual([
      { actions: ['s3:GetObject'], resource: objects },
    ])
    // …but the courses group, which deletes a deleted module's package (and nothing else of S3)
    const packageRemoval = s3(allowedStatements(template, stack, 'courses'))
    expect(packageRemoval.map((s) => s.actions)).toEqual([['s3:DeleteObject']])
    expect(JSON.stringify(packageRemoval[0]?.resource)).toContain('/tenants/*/modules/*/package.zip')
    for (const group of routeGroups.filter((g) => g !== 'reports' && g !== 'courses')) {
      expect(s3(allowedStatements(template, stack, group)), group).toEqual([])
    }
  })

  it('lets no route group but integrations read the key of secrets at rest; the groups that count client addresses read only the pseudonym secret, billing only its platform secret, the LTI group (which counts too) besides it only its tool-key secret', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const secrets = Object.keys(template.findResources('AWS::SecretsManager::Secret'))
    const pseudonymSecret = secrets.find((id) => id.startsWith('PseudonymSecret'))
    const platformSecret = secrets.find((id) => id.startsWith('PlatformMetricsSecret'))
    const ltiSecret = secrets.find((id) => id.startsWith('LtiToolKeySecret'))
    const encryptionSecret = secrets.find((id) => id.startsWith('EncryptionSecret'))
    const counting = new Set(routes.filter((r) => r.scope !== null || r.perIp).map((r) => r.group))

    for (const group of routeGroups) {
      // Act
      const reads = secretsReadBy(template, stack, group)
      const env = template.findResources('AWS::Lambda::Function')[functionId(stack, group)] as {
        Properties: { Environment: { Variables: Record<string, unknown> } }
      }

      // Assess
      const expected = [
        ...(counting.has(group) ? [pseudonymSecret] : []),
        ...(group === 'billing' ? [platformSecret] : []),
        ...(group === 'lti' ? [ltiSecret] : []),
        ...(group === 'integrations' ? [encryptionSecret] : []),
      ]
      expect([...reads].sort(), `${group} reads`).toEqual(expected.sort())
      expect('LMS_PLATFORM_METRICS_SECRET_ARN' in env.Properties.Environment.Variables, group).toBe(
        group === 'billing',
      )
      expect('LMS_LTI_KEY_SECRET_ARN' in env.Properties.Environment.Variables, group).toBe(group === 'lti')
      expect('LMS_ENCRYPTION_SECRET_ARN' in env.Properties.Environment.Variables, group).toBe(
        group === 'integrations',
      )
      expect('LMS_PSEUDONYM_SECRET_ARN' in env.Properties.Environment.Variables, group).toBe(
        counting.has(group),
      )
    }
    expect([...counting].sort()).toEqual([
      'courses',
      'enrollments',
      'groups',
      'integrations',
      'lti',
      'lti-admin',
      'public',
      'reports',
      'skills',
      'users',
      'webhooks',
    ])
  })

  it('outputs the table name and the tenant URL, not the disabled execute-api endpoint', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const tableId = logicalId(stack, stack.table.node.defaultChild)
    const apiId = logicalId(stack, stack.api.node.defaultChild)

    // Act
    const outputs = template.findOutputs('*')

    // Assess
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['TableName', 'TenantUrl']))
    template.hasOutput('TableName', { Value: { Ref: tableId } })
    template.hasOutput('TenantUrl', { Value: `https://<tenant>.${serviceHost}/api/v1` })
    expect(JSON.stringify(outputs)).not.toContain(JSON.stringify([apiId, 'ApiEndpoint']))
  })
  it('routes the LTI endpoints and the learner pages to the lti function, keyless, on the tenant domain', () => {
    // Prepare
    const { stack, template } = synth('withCertificateArn')
    const ltiRoutes = routes.filter((r) => r.group === 'lti').map(routeKey)

    // Act
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties.RouteKey as string,
    )

    // Assess
    expect(ltiRoutes).toEqual([
      'GET /api/v1/lti/login',
      'POST /api/v1/lti/login',
      'POST /api/v1/lti/launch',
      'POST /api/v1/lti/deep-link',
      'GET /api/v1/lti/.well-known/jwks.json',
      'GET /learn/{id}',
      'POST /learn/{id}',
      'GET /catalog',
      'GET /login',
    ])
    expect(keys).toEqual(expect.arrayContaining(ltiRoutes))
    // The table's TTL clears login states and nonces no launch used.
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: tableSchema.ttlAttribute, Enabled: true },
    })
    expect(allowedActions(template, stack, 'lti')).toEqual(expect.arrayContaining(['dynamodb:DeleteItem']))
  })
})

describe('Construct: LmsStack (least privilege, read as the local IAM check reads it)', () => {
  const names: LocalNames = {
    region: 'us-east-1',
    account: '000000000000',
    tableName: 'lms',
    buckets: { exports: 'lms-exports', content: 'lms-content', accessLogs: 'lms-access-logs' },
  }
  const tableArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/lms'

  /** Each function's statements and environment, and every table, queue, bucket and secret of the stack. */
  function read() {
    const { stack, template } = synth('withCertificateArn')
    const synthesized = synthesizedFrom(stack, template.toJSON())
    const resolve = templateResolver(synthesized, names)
    const kinds = [
      'AWS::DynamoDB::GlobalTable',
      'AWS::SQS::Queue',
      'AWS::S3::Bucket',
      'AWS::SecretsManager::Secret',
    ]
    const resources = Object.entries(synthesized.template.Resources)
      .filter(([, r]) => kinds.includes(r.Type))
      .map(([id, r]) => ({
        id,
        /** What an environment value names it by (a queue: its URL). */
        named: resolve({ Ref: id }),
        arn:
          r.Type === 'AWS::SecretsManager::Secret'
            ? resolve({ Ref: id })
            : resolve({ 'Fn::GetAtt': [id, 'Arn'] }),
      }))
    return { policies: functionPolicies(synthesized, names), resources }
  }

  const reaches = (statements: readonly AllowStatement[], arn: string) =>
    statements.some((s) => s.resources.some((r) => r === arn || r.startsWith(`${arn}/`)))

  it("names in no function's environment a table, queue, bucket or secret the function has no grant on", () => {
    // Prepare
    const { policies, resources } = read()

    // Act
    const ungranted = [...policies.values()].flatMap((p) =>
      Object.entries(p.environment).flatMap(([variable, value]) =>
        resources
          .filter((r) => r.named === value && !reaches(p.statements, r.arn))
          .map((r) => `${p.name} ${variable} (${r.id})`),
      ),
    )

    // Assess
    expect(policies.size).toBe(25)
    expect(ungranted).toEqual([])
  })

  it('grants the table to each function for what the store sends only: never DescribeTable or a stream read, and Scan to the migrations function alone, on the table only', () => {
    // Prepare
    const { policies } = read()

    for (const p of policies.values()) {
      // Act
      const onTable = p.statements.filter((s) =>
        s.resources.some((r) => r === tableArn || r.startsWith(`${tableArn}/index/`)),
      )
      // The migration runner pages through the table (decision 0033).
      const sends =
        p.name === 'migrations' ? [...tableActions.readWrite, 'dynamodb:Scan'] : tableActions.readWrite

      // Assess
      for (const s of onTable) expect(sends, p.name).toEqual(expect.arrayContaining([...s.actions]))
      expect(isAllowed(p.statements, 'dynamodb:Scan', tableArn), `${p.name} may Scan the table`).toBe(
        p.name === 'migrations',
      )
      for (const action of [
        'dynamodb:Scan',
        'dynamodb:DescribeTable',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ]) {
        if (action !== 'dynamodb:Scan')
          expect(isAllowed(p.statements, action, tableArn), `${p.name} may ${action} the table`).toBe(false)
        expect(
          isAllowed(p.statements, action, `${tableArn}/index/gsi1`),
          `${p.name} may ${action} an index`,
        ).toBe(false)
      }
    }
    // The relay reads the table's stream, through its event source.
    expect(
      isAllowed(
        policies.get('outbox-relay')?.statements ?? [],
        'dynamodb:GetRecords',
        `${tableArn}/stream/local`,
      ),
    ).toBe(true)
  })

  it('gives the exports bucket to the export worker (put) and the reports group (get) alone, and the content bucket to the courses group (delete of a package) alone', () => {
    // Prepare
    const { policies } = read()
    const exportObject = 'arn:aws:s3:::lms-exports/tenants/t1/exports/f.csv'
    const packageObject = 'arn:aws:s3:::lms-content/tenants/t1/modules/m1/package.zip'

    // Act
    const onExports = [...policies.values()]
      .filter((p) => Object.values(p.environment).includes('lms-exports'))
      .map((p) => p.name)
    const mayPut = [...policies.values()]
      .filter((p) => isAllowed(p.statements, 's3:PutObject', exportObject))
      .map((p) => p.name)
    const mayGet = [...policies.values()]
      .filter((p) => isAllowed(p.statements, 's3:GetObject', exportObject))
      .map((p) => p.name)
    const onContent = [...policies.values()]
      .filter((p) => Object.values(p.environment).includes('lms-content'))
      .map((p) => p.name)
    const mayReadOrWrite = [...policies.values()].filter((p) =>
      ['s3:GetObject', 's3:PutObject'].some((a) => isAllowed(p.statements, a, packageObject)),
    )
    const mayDelete = [...policies.values()]
      .filter((p) => isAllowed(p.statements, 's3:DeleteObject', packageObject))
      .map((p) => p.name)

    // Assess
    expect(onExports.sort()).toEqual(['exports-worker', 'reports'])
    expect(mayPut).toEqual(['exports-worker'])
    expect(mayGet).toEqual(['reports'])
    expect(onContent).toEqual(['courses'])
    expect(mayReadOrWrite).toEqual([])
    expect(mayDelete).toEqual(['courses'])
  })

  it('lets the queue senders send only, and the secret readers read the value only', () => {
    // Prepare
    const { policies } = read()

    // Act
    const extra = [...policies.values()].flatMap((p) =>
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'secretsmanager:DescribeSecret']
        .filter((action) =>
          p.statements.some(
            (s) =>
              s.actions.includes(action) &&
              // The event source mapping reads its own queue with the worker's role.
              !s.actions.includes('sqs:ReceiveMessage'),
          ),
        )
        .map((action) => `${p.name} ${action}`),
    )

    // Assess
    expect(extra).toEqual([])
  })
})
