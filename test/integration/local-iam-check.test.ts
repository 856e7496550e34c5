/**
 * The local IAM check in the running stack: the stack the tests talk to checks each call of its
 * functions against their grants in the synthesized template (the run's closing line counts them),
 * and a call that a function's grants lack fails with the function, the action and the resource
 * named, on the very clients and template the stack uses.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { readCheckedCalls } from '../../local/iam/checked-record.ts'
import { runAs } from '../../local/iam/invocation.ts'
import { LOCAL_ACCOUNT, startLocalIamCheck } from '../../local/iam/local-iam-check.ts'
import { synthesizedStack } from '../../local/iam/policy-cache.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { newTenant } from '../helpers/tenants.ts'

const region = process.env.AWS_REGION ?? 'us-east-1'
const tableArn = `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT}:table/${tableName}`

let stopChecking: (() => void) | undefined

afterEach(() => {
  stopChecking?.()
  stopChecking = undefined
})

/** This test process's clients, checked as the stack checks its own. */
async function checkHere(): Promise<void> {
  const { stack } = await synthesizedStack()
  stopChecking = startLocalIamCheck({ stack, region, tableName })
}

const getTenantItem = () =>
  doc.send(new GetCommand({ TableName: tableName, Key: { pk: 'TENANT#none', sk: 'TENANT' } }))

describe('Rule: every AWS call of a function is checked against its grants in the synthesized template', () => {
  it("refuses a call the function's grants lack, naming the function, the action and the resource", async () => {
    // Prepare: plans is served by the static stack, with no grant on the table
    await checkHere()

    // Act
    const asPlans = runAs('plans', getTenantItem)

    // Assess
    await expect(asPlans).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining(
        `Function plans is not authorized to perform: dynamodb:GetItem on resource: ${tableArn} because`,
      ) as unknown,
    })
  })

  it('lets the same call through for a function granted it, against DynamoDB Local', async () => {
    // Prepare
    await checkHere()

    // Act
    const asUsers = await runAs('users', getTenantItem)

    // Assess
    expect(asUsers.$metadata.httpStatusCode).toBe(200)
    expect(asUsers.Item).toBeUndefined()
  })

  it("checks the calls of the stack's own functions: a request is recorded under its route group", async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const reply = await t.api.get('/api/v1/users')

    // Assess
    expect(reply.status).toBe(200)
    const checked = readCheckedCalls(inject('iamRecordFile')).filter((c) => c.function === 'users')
    expect(checked).toEqual(
      expect.arrayContaining([
        { function: 'users', action: 'dynamodb:GetItem', resource: tableArn, allowed: true },
      ]),
    )
  })
})
