/**
 * Each function's grants and environment, read from the synthesized template (the very document
 * `cdk deploy` sends): the statements of every policy attached to the function's role and the
 * variables of its environment, with the template's references resolved to the local stack's
 * resources (the table, the queues and buckets by their local names, secrets by a local ARN).
 */
import { statementsOf, type AllowStatement, type TemplateStatement } from './policy-evaluator.ts'

/** What the synthesis hands over: the template and where its functions and buckets are in it. */
export interface SynthesizedStack {
  readonly template: { readonly Resources: Readonly<Record<string, TemplateResource>> }
  /** Each function's name (a route group, `outbox-relay`, `webhooks-worker`, ...) → its logical id. */
  readonly functions: Readonly<Record<string, string>>
  /** The buckets' logical ids by their role in the stack. */
  readonly buckets: Readonly<Record<BucketRole, string>>
}

export type BucketRole = 'exports' | 'content' | 'accessLogs'

export interface TemplateResource {
  readonly Type: string
  readonly Properties?: Readonly<Record<string, unknown>>
}

/** The local stack's names for what the template creates. */
export interface LocalNames {
  readonly region: string
  readonly account: string
  readonly tableName: string
  readonly buckets: Readonly<Record<BucketRole, string>>
}

export interface FunctionPolicy {
  readonly name: string
  readonly statements: readonly AllowStatement[]
  /** The environment, resolved to local values. */
  readonly environment: Readonly<Record<string, string>>
}

const pseudoParameters = (n: LocalNames): Readonly<Record<string, string>> => ({
  'AWS::Partition': 'aws',
  'AWS::Region': n.region,
  'AWS::AccountId': n.account,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'Lms',
})

/** Resolves Ref, Fn::GetAtt and Fn::Join to local values; anything else is an error. */
export function templateResolver(stack: SynthesizedStack, names: LocalNames): (value: unknown) => string {
  const resources = stack.template.Resources
  const bucketName = (id: string) => {
    const role = (Object.keys(stack.buckets) as BucketRole[]).find((r) => stack.buckets[r] === id)
    if (!role) throw new Error(`The template's bucket ${id} has no local name`)
    return names.buckets[role]
  }
  const tableArn = `arn:aws:dynamodb:${names.region}:${names.account}:table/${names.tableName}`
  const queueName = (r: TemplateResource, id: string) => {
    const name = r.Properties?.QueueName
    if (typeof name !== 'string') throw new Error(`The queue ${id} has no fixed name`)
    return name
  }
  const queueUrl = (name: string) => `https://sqs.${names.region}.amazonaws.com/${names.account}/${name}`

  const ref = (id: string): string => {
    const pseudo = pseudoParameters(names)[id]
    if (pseudo) return pseudo
    const r = resources[id]
    switch (r?.Type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table':
        return names.tableName
      case 'AWS::SQS::Queue':
        return queueUrl(queueName(r, id))
      case 'AWS::S3::Bucket':
        return bucketName(id)
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${names.region}:${names.account}:secret:${id}`
      case 'AWS::SES::ConfigurationSet':
        return String(r.Properties?.Name)
      default:
        throw new Error(
          `The local IAM check cannot resolve a Ref to ${id} (${r?.Type ?? 'not in the template'})`,
        )
    }
  }

  const getAtt = (id: string, attribute: string): string => {
    const r = resources[id]
    const key = `${r?.Type}.${attribute}`
    switch (key) {
      case 'AWS::DynamoDB::GlobalTable.Arn':
      case 'AWS::DynamoDB::Table.Arn':
        return tableArn
      case 'AWS::DynamoDB::GlobalTable.StreamArn':
      case 'AWS::DynamoDB::Table.StreamArn':
        return `${tableArn}/stream/local`
      case 'AWS::SQS::Queue.Arn':
        return `arn:aws:sqs:${names.region}:${names.account}:${queueName(r as TemplateResource, id)}`
      case 'AWS::SQS::Queue.QueueName':
        return queueName(r as TemplateResource, id)
      case 'AWS::SQS::Queue.QueueUrl':
        return queueUrl(queueName(r as TemplateResource, id))
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${bucketName(id)}`
      default:
        throw new Error(
          `The local IAM check cannot resolve ${id}.${attribute} (${r?.Type ?? 'not in the template'})`,
        )
    }
  }

  const resolve = (value: unknown): string => {
    if (typeof value === 'string') return value
    if (typeof value === 'object' && value !== null) {
      const o = value as Record<string, unknown>
      if (typeof o.Ref === 'string') return ref(o.Ref)
      const att = o['Fn::GetAtt']
      if (Array.isArray(att) && typeof att[0] === 'string' && typeof att[1] === 'string')
        return getAtt(att[0], att[1])
      const join = o['Fn::Join']
      if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
        return (join[1] as unknown[]).map(resolve).join(join[0])
      }
    }
    throw new Error(`The local IAM check cannot resolve ${JSON.stringify(value)}`)
  }
  return resolve
}

interface PolicyDocument {
  readonly Statement?: readonly TemplateStatement[]
}

/** The role a function runs as: `Role: {Fn::GetAtt: [role, Arn]}`. */
function roleOf(fn: TemplateResource, name: string): string {
  const role = (fn.Properties?.Role as { 'Fn::GetAtt'?: unknown[] } | undefined)?.['Fn::GetAtt']?.[0]
  if (typeof role !== 'string') throw new Error(`The function ${name} has no role of the stack`)
  return role
}

/**
 * Every statement of the policies attached to the role (its AWS::IAM::Policy resources and inline
 * policies). Managed policies are left out: the one the functions have (basic execution) grants
 * CloudWatch Logs only, which the functions reach through the runtime, never through the SDK.
 */
function roleStatements(stack: SynthesizedStack, roleId: string): TemplateStatement[] {
  const documents: PolicyDocument[] = []
  for (const r of Object.values(stack.template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue
    const roles = (r.Properties?.Roles ?? []) as { Ref?: unknown }[]
    if (roles.some((x) => x.Ref === roleId)) documents.push(r.Properties?.PolicyDocument as PolicyDocument)
  }
  const inline = (stack.template.Resources[roleId]?.Properties?.Policies ?? []) as {
    PolicyDocument: PolicyDocument
  }[]
  documents.push(...inline.map((p) => p.PolicyDocument))
  return documents.flatMap((d) => d.Statement ?? [])
}

/** Each function of the stack, by name, with its grants and environment resolved to local values. */
export function functionPolicies(stack: SynthesizedStack, names: LocalNames): Map<string, FunctionPolicy> {
  const resolve = templateResolver(stack, names)
  const out = new Map<string, FunctionPolicy>()
  for (const [name, id] of Object.entries(stack.functions)) {
    const fn = stack.template.Resources[id]
    if (fn?.Type !== 'AWS::Lambda::Function')
      throw new Error(`The function ${name} (${id}) is not in the template`)
    const variables = ((fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables ?? {}) as Record<string, unknown>
    out.set(name, {
      name,
      statements: statementsOf(roleStatements(stack, roleOf(fn, name)), resolve),
      environment: Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolve(v)])),
    })
  }
  return out
}
