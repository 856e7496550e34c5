import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { Tenant } from '../../../shared/domain/tenants/tenant.ts'
import { meterApiRequest } from '../../../shared/services/usage-service.ts'

const ddb = mockClient(DynamoDBDocumentClient)
const now = Date.UTC(2026, 2, 10, 12)
const tenant: Tenant = {
  id: 't1',
  slug: 'acme',
  name: 'Acme',
  plan: 'growth',
  kind: 'customer',
  status: 'active',
  skillsPlanning: false,
  monthlyApiCap: 40,
  periodStart: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}

const alertsWritten = () =>
  ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems?.[1]?.Put?.Item?.data)

beforeEach(() => ddb.reset())
afterAll(() => ddb.restore())

describe('Function: meterApiRequest', () => {
  it('admits a request under the cap and records no alert between the thresholds', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 31 } })
    expect(await meterApiRequest(tenant, now)).toBe(true)
    expect(alertsWritten()).toEqual([])
  })

  it('records the alert with the request that reaches a threshold', async () => {
    // Prepare
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 32 } })
    ddb.on(TransactWriteCommand).resolves({})

    // Act + Assess
    expect(await meterApiRequest(tenant, now)).toBe(true)
    expect(alertsWritten()).toEqual([{ month: '2026-03', percent: 80, used: 32, cap: 40 }])
  })

  it('takes an alert already recorded this month as done', async () => {
    // Prepare: the marker's condition fails
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 40 } })
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        $metadata: {},
        message: 'cancelled',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      }),
    )

    // Act + Assess
    expect(await meterApiRequest(tenant, now)).toBe(true)
  })

  it('refuses the request once the month cap is reached, writing nothing', async () => {
    // Prepare
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ $metadata: {}, message: 'capped' }))

    // Act + Assess
    expect(await meterApiRequest(tenant, now)).toBe(false)
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0)
    expect(await meterApiRequest({ ...tenant, monthlyApiCap: 0 }, now)).toBe(false)
  })
})
