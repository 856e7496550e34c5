/**
 * A request refused for its key (unknown, revoked, expired, of the other environment, lacking the
 * route's scope) never counts against the tenant's monthly usage, or anyone could spend a tenant's
 * cap; and a revoked key is refused on the very next request, the overlapped read path included.
 */
import { randomUUID } from 'node:crypto'
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { describe, expect, it } from 'vitest'
import { generateKey } from '../../shared/domain/api-keys/key-format.ts'
import type { TenantContext } from '../../shared/domain/tenants/tenant.ts'
import { revokeApiKey, listApiKeys, updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { insertApiKey } from '../../shared/store/tenants/api-keys-store.ts'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { lms } from '../helpers/cli.ts'
import { client, ownAddress, call } from '../helpers/http.ts'
import { newTenant } from '../helpers/tenants.ts'

/** The tenant's count for this month as the store holds it (0 before its first metered request). */
async function monthlyUsage(tenant: TenantContext): Promise<number> {
  const month = new Date().toISOString().slice(0, 7)
  const out = await doc.send(
    new GetCommand({ TableName: tableName, Key: keys.monthlyUsage(tenant, month), ConsistentRead: true }),
  )
  return Number(out.Item?.count ?? 0)
}

describe('Rule: a request refused for its key never counts against the monthly usage', () => {
  it('leaves the month untouched for unknown, revoked, expired, other-environment and out-of-scope keys, then admits the whole cap', async () => {
    // Prepare: a sandbox (test keys), capped at 2 requests a month
    const t = await newTenant('growth', 'sandbox')
    await updateTenant(t.slug, { monthlyApiCap: 2 })
    const revoked = await t.key(['read'])
    const record = (await listApiKeys(t.tenant)).find((k) => revoked.startsWith(k.prefix))
    await revokeApiKey(t.tenant, record?.id ?? '')
    const expired = await t.key(['read'], { expiresAt: new Date(Date.now() - 1000).toISOString() })
    const live = generateKey('live')
    await insertApiKey(t.tenant, {
      id: randomUUID(),
      tenantId: t.tenant.id,
      prefix: live.prefix,
      hash: live.hash,
      env: 'live',
      scopes: ['read'],
      expiresAt: null,
      revokedAt: null,
      createdAt: new Date().toISOString(),
    })
    const writeOnly = await t.key(['write'])
    const path = `/api/v1/users/${randomUUID()}`
    // Each refusal from an address of its own, so the failed-authentication window stays out of it
    const get = (key: string) =>
      call('GET', path, { host: `${t.slug}.localhost`, key, localAddress: ownAddress() })

    // Act
    const refused = [
      await get(generateKey('test').key),
      await get(revoked),
      await get(expired),
      await get(live.key),
      await get(writeOnly),
    ]
    const usedAfterRefusals = await monthlyUsage(t.tenant)
    const admitted = [await t.api.get(path), await t.api.get(path)]
    const overCap = await t.api.get(path)

    // Assess
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401, 403])
    expect(usedAfterRefusals).toBe(0)
    // The out-of-scope request was authenticated: it counts against its key's minute
    expect(refused[4]?.headers['x-ratelimit-remaining']).toBe('999')
    expect(admitted.map((r) => r.status)).toEqual([404, 404])
    expect(overCap.status).toBe(429)
    expect(overCap.body.error.message).toBe('Monthly API usage cap exceeded')
    expect(await monthlyUsage(t.tenant)).toBe(2)
  })

  it('refuses a key revoked with the CLI on the very next read, and meters only what it admitted', async () => {
    // Prepare
    const t = await newTenant()
    const created = await lms('api-key', 'create', '--tenant', t.slug, '--scopes', 'read')
    expect(created.code).toBe(0)
    const api = client(t.slug, String(created.json.key))
    const user = await t.api.post('/api/v1/users', {
      email: `ada-${randomUUID()}@example.com`,
      first_name: 'Ada',
      last_name: 'Lovelace',
      role: 'learner',
    })
    expect(user.status).toBe(201)
    const path = `/api/v1/users/${String(user.body.data.id)}`
    expect((await api.get(path)).status).toBe(200)
    const usedBefore = await monthlyUsage(t.tenant)

    // Act
    const revokedNow = await lms('api-key', 'revoke', '--tenant', t.slug, '--id', String(created.json.id))
    const next = await api.get(path)

    // Assess
    expect(revokedNow.code).toBe(0)
    expect(next.status).toBe(401)
    expect(next.body.data).toBeNull()
    expect(await monthlyUsage(t.tenant)).toBe(usedBefore)
  })
})
