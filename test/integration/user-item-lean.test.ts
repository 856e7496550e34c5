/**
 * A user item stores no empty or null attribute (users-store.ts: they cost their names in the item
 * and in its three index entries), and a change that empties one takes it out; the API shows them
 * as before (null, {}). The stored item is read with the SDK's own client, apart from the product.
 */
import { describe, expect, it } from 'vitest'
import { keys } from '../../shared/store/core/keys.ts'
import { newTenant, userBody } from '../helpers/tenants.ts'
import { storedItem } from '../helpers/stored-item.ts'

const EMPTY_WHEN_UNSET = ['external_id', 'custom_fields', 'custom_role_ids', 'last_login_at']

describe('Rule: a user item holds no empty attribute', () => {
  it('leaves out what a new user does not have, and the API still shows null and {}', async () => {
    // Prepare
    const t = await newTenant()

    // Act
    const created = await t.api.post('/api/v1/users', userBody())

    // Assess
    expect(created.status).toBe(201)
    const item = await storedItem(keys.user(t.tenant, created.body.data.id))
    expect(Object.keys(item).filter((k) => EMPTY_WHEN_UNSET.includes(k))).toEqual([])
    const read = (await t.api.get(`/api/v1/users/${created.body.data.id}`)).body.data
    expect(read).toMatchObject({ external_id: null, last_login_at: null, custom_fields: {} })
  })

  it('takes an attribute out when a change empties it, and keeps the others', async () => {
    // Prepare
    const t = await newTenant()
    const created = (await t.api.post('/api/v1/users', userBody({ external_id: 'hr-7' }))).body.data
    expect((await storedItem(keys.user(t.tenant, created.id))).external_id).toBe('hr-7')

    // Act
    const cleared = await t.api.patch(`/api/v1/users/${created.id}`, { external_id: null })

    // Assess
    expect(cleared.status).toBe(200)
    const item = await storedItem(keys.user(t.tenant, created.id))
    expect('external_id' in item).toBe(false)
    expect(item.email).toBe(created.email)
    expect((await t.api.get(`/api/v1/users/${created.id}`)).body.data.external_id).toBeNull()
    const again = await t.api.patch(`/api/v1/users/${created.id}`, { external_id: 'hr-8' })
    expect(again.status).toBe(200)
    expect((await storedItem(keys.user(t.tenant, created.id))).external_id).toBe('hr-8')
  })
})
