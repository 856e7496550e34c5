import { describe, expect, it } from 'vitest'
import {
  actionMatches,
  isAllowed,
  resourceMatches,
  statementsOf,
  type AllowStatement,
} from '../../../../local/iam/policy-evaluator.ts'

const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/lms'
const statements: AllowStatement[] = [
  { actions: ['dynamodb:GetItem', 'dynamodb:Query'], resources: [table, `${table}/index/*`] },
  { actions: ['s3:Get*'], resources: ['arn:aws:s3:::lms-exports/tenants/*/exports/*'] },
]

describe('Function: isAllowed', () => {
  it('allows an action a statement lists on a resource it lists', () => {
    // Act
    const allowed = isAllowed(statements, 'dynamodb:GetItem', table)

    // Assess
    expect(allowed).toBe(true)
  })

  it('allows a resource under a wildcard of its statement (an index of the table)', () => {
    // Act
    const allowed = isAllowed(statements, 'dynamodb:Query', `${table}/index/gsi1`)

    // Assess
    expect(allowed).toBe(true)
  })

  it('allows an action under a wildcard action, whatever its case', () => {
    // Act
    const allowed = isAllowed(statements, 's3:getobject', 'arn:aws:s3:::lms-exports/tenants/t1/exports/a.csv')

    // Assess
    expect(allowed).toBe(true)
  })

  it('refuses an action no statement lists, on a resource another action may reach', () => {
    // Act
    const allowed = isAllowed(statements, 'dynamodb:PutItem', table)

    // Assess
    expect(allowed).toBe(false)
  })

  it('refuses an allowed action on a resource no statement reaches (another table, another prefix)', () => {
    // Act
    const otherTable = isAllowed(statements, 'dynamodb:GetItem', `${table}-2`)
    const otherPrefix = isAllowed(
      statements,
      's3:GetObject',
      'arn:aws:s3:::lms-exports/tenants/t1/modules/p.zip',
    )

    // Assess
    expect([otherTable, otherPrefix]).toEqual([false, false])
  })

  it('refuses everything with no statements', () => {
    // Act
    const allowed = isAllowed([], 'dynamodb:GetItem', table)

    // Assess
    expect(allowed).toBe(false)
  })
})

describe('Function: resourceMatches', () => {
  it('keeps a wildcard inside its ARN segment, and lets `*` alone match any resource', () => {
    // Act
    const acrossSegments = resourceMatches('arn:aws:sqs:*', 'arn:aws:sqs:us-east-1:000000000000:lms-webhooks')
    const perSegment = resourceMatches(
      'arn:aws:sqs:*:*:lms-*',
      'arn:aws:sqs:us-east-1:000000000000:lms-webhooks',
    )
    const any = resourceMatches('*', 'arn:aws:sqs:us-east-1:000000000000:lms-webhooks')

    // Assess
    expect([acrossSegments, perSegment, any]).toEqual([false, true, true])
  })

  it('compares resources with their case, and `?` as one character', () => {
    // Act
    const upper = resourceMatches('arn:aws:s3:::lms-exports/a', 'arn:aws:s3:::lms-exports/A')
    const one = resourceMatches('arn:aws:s3:::lms-exports/?', 'arn:aws:s3:::lms-exports/A')
    const two = resourceMatches('arn:aws:s3:::lms-exports/?', 'arn:aws:s3:::lms-exports/AB')

    // Assess
    expect([upper, one, two]).toEqual([false, true, false])
  })
})

describe('Function: actionMatches', () => {
  it('keeps the service apart: a wildcard of one service never matches another', () => {
    // Act
    const matched = actionMatches('sqs:*', 'sns:Publish')

    // Assess
    expect(matched).toBe(false)
  })
})

describe('Function: statementsOf', () => {
  const resolve = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

  it('reads Allow statements with a single action or resource as lists', () => {
    // Act
    const read = statementsOf([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: 'arn:q' }], resolve)

    // Assess
    expect(read).toEqual([{ actions: ['sqs:SendMessage'], resources: ['arn:q'] }])
  })

  it.each([
    ['a Deny', { Effect: 'Deny', Action: 'sqs:SendMessage', Resource: '*' }],
    ['a Condition', { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: '*', Condition: { Bool: {} } }],
    ['a NotAction', { Effect: 'Allow', NotAction: 'sqs:SendMessage', Resource: '*' }],
  ])('refuses %s rather than decide unlike IAM', (_kind, statement) => {
    // Act
    const read = () => statementsOf([statement], resolve)

    // Assess
    expect(read).toThrow(/Allow statements of Action and Resource only/)
  })
})
