/** Each test makes its own tenant, so tests never share data. */
import { randomBytes } from 'node:crypto'
import type { PlanId } from '../../shared/domain/errors.ts'
import { createApiKey, createTenant } from '../../shared/services/tenants/tenants-service.ts'
import type { Tenant } from '../../shared/domain/tenants/tenant.ts'
import { client } from './http.ts'

export interface TestTenant {
  readonly tenant: Tenant
  readonly slug: string
  /** read, write and admin */
  readonly adminKey: string
  readonly api: ReturnType<typeof client>
  key(scopes: string[], options?: { env?: 'live' | 'test'; expiresAt?: string }): Promise<string>
}

export async function newTenant(plan: PlanId = 'growth', kind = 'customer'): Promise<TestTenant> {
  const slug = `t-${randomBytes(5).toString('hex')}`
  const tenant = await createTenant({ slug, plan, kind })
  const key = async (scopes: string[], options: { env?: 'live' | 'test'; expiresAt?: string } = {}) =>
    (await createApiKey(tenant, scopes, options.env, options.expiresAt ?? null)).key
  const adminKey = await key(['read', 'write', 'admin'])
  return { tenant, slug, adminKey, api: client(slug, adminKey), key }
}

let seq = 0
export function userBody(overrides: Record<string, unknown> = {}) {
  seq += 1
  return {
    email: `user${seq}-${randomBytes(3).toString('hex')}@example.com`,
    first_name: 'Ada',
    last_name: `Lovelace${seq}`,
    role: 'learner',
    ...overrides,
  }
}
