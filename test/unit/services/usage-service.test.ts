import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { Tenant } from '../../../shared/domain/tenants/tenant.ts'
import { meterApiRequest } from '../../../shared/services/billing/usage-service.ts'
import { inputsOf, mockDocuments } from '../../helpers/mock-documents.ts'

const ddb = mockDocuments()
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

beforeEach(() => ddb.reset())
afterAll(() => ddb.restore())

describe('Function: meterApiRequest', () => {
  it('admits a request under the cap and only counts it: the alerts are the usage-alerts job’s', async () => {
    // Prepare: this request reaches 80% of the cap
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 32 } })

    // Act + Assess
    expect(await meterApiRequest(tenant, now)).toBe(32)
    expect(inputsOf(ddb, UpdateCommand)).toHaveLength(1)
    expect(inputsOf(ddb, TransactWriteCommand)).toHaveLength(0)
  })

  it('refuses the request once the month cap is reached, writing nothing', async () => {
    // Prepare
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ $metadata: {}, message: 'capped' }))

    // Act + Assess
    expect(await meterApiRequest(tenant, now)).toBeUndefined()
    expect(inputsOf(ddb, TransactWriteCommand)).toHaveLength(0)
    expect(await meterApiRequest({ ...tenant, monthlyApiCap: 0 }, now)).toBeUndefined()
  })
})
