/**
 * Workers know a tenant by its id (messages and outbox items carry ids): one read of the tenant's
 * copy under its id, which every change of the tenant rewrites with the slug item, so what a worker
 * reads is what the API reads.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { findTenantById } from '../../shared/store/tenants/tenants-store.ts'
import { wrapDynamoDbCalls } from '../helpers/dynamodb-calls.ts'
import { storedItem } from '../helpers/stored-item.ts'
import { newTenant } from '../helpers/tenants.ts'

let unwatch: (() => void) | undefined
afterEach(() => {
  unwatch?.()
  unwatch = undefined
})

/** The DynamoDB operations this process sends from now on. */
function watchOperations(): string[] {
  const sent: string[] = []
  unwatch = wrapDynamoDbCalls((next) => async (op, input) => {
    sent.push(op)
    return next(op, input)
  })
  return sent
}

describe('Rule: a tenant read by id is one read, and sees every change', () => {
  it('reads the tenant by id in one GetItem, with a plan change made through the service', async () => {
    // Prepare
    const t = await newTenant('starter')
    await updateTenant(t.slug, { plan: 'enterprise', name: 'Renamed Ltd' })
    const sent = watchOperations()

    // Act
    const found = await findTenantById(t.tenant.id)

    // Assess
    expect(found).toMatchObject({ id: t.tenant.id, slug: t.slug, plan: 'enterprise', name: 'Renamed Ltd' })
    expect(sent).toEqual(['GetItem'])
  })

  it('lands both of two changes decided at once, on both items', async () => {
    // Prepare
    const t = await newTenant('starter')

    // Act
    await Promise.all([
      updateTenant(t.slug, { plan: 'growth' }),
      updateTenant(t.slug, { monthlyApiCap: 1234 }),
    ])

    // Assess
    const byId = await findTenantById(t.tenant.id)
    expect(byId).toMatchObject({ plan: 'growth', monthlyApiCap: 1234 })
    const slugItem = await storedItem({ pk: `TENANT#${t.slug}`, sk: 'TENANT' })
    const idItem = await storedItem({ pk: `TENANTID#${t.tenant.id}`, sk: 'TENANT' })
    expect({ ...idItem, pk: slugItem.pk }).toEqual(slugItem)
    expect(slugItem).toMatchObject({ version: 3 })
  })

  it('still finds a tenant whose id item is the pointer written before the copies, and makes it a copy at its next change', async () => {
    // Prepare: the id item as tenants created before the copies have it.
    const t = await newTenant('starter')
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: `TENANTID#${t.tenant.id}`, sk: 'TENANT', slug: t.slug },
      }),
    )

    // Act
    const before = await findTenantById(t.tenant.id)
    await updateTenant(t.slug, { plan: 'growth' })
    const sent = watchOperations()
    const after = await findTenantById(t.tenant.id)

    // Assess
    expect(before).toMatchObject({ id: t.tenant.id, plan: 'starter' })
    expect(after).toMatchObject({ id: t.tenant.id, plan: 'growth' })
    expect(sent).toEqual(['GetItem'])
  })
})
