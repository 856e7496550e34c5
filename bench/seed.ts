/**
 * The benchmark tenant: a Growth tenant (API access), two admin keys (one for the cost scenarios,
 * one for the timing loops, so neither meets the per-key minute limit) and N users loaded with
 * seedUsers. Users are generated deterministically (a seeded PRNG) with varied roles, user types
 * and states, and created_at spread over three years.
 */
import { randomUUID } from 'node:crypto'
import type { Tenant } from '../shared/domain/tenants/tenant.ts'
import type { Role, User, UserType } from '../shared/domain/users/user.ts'
import { createApiKey, createTenant } from '../shared/services/tenants/tenants-service.ts'
import { runWithDbMetrics, summarize } from '../shared/store/core/metrics.ts'
import { seedUsers } from '../shared/store/users/users-store.ts'

export interface SeededTenant {
  readonly tenant: Tenant
  readonly host: string
  readonly scenarioKey: string
  readonly timingKey: string
  readonly users: readonly User[]
}

export interface SeedReport {
  readonly users: number
  readonly items: number
  readonly batchWriteCalls: number
  readonly wcu: number
  readonly ms: number
  readonly usersPerSecond: number
  readonly roles: Record<string, number>
  readonly userTypes: Record<string, number>
  readonly active: number
}

/** mulberry32: small, fast, good enough to make the data set the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function weighted<T>(rand: () => number, table: readonly (readonly [T, number])[]): T {
  let x = rand() * table.reduce((sum, [, w]) => sum + w, 0)
  let picked = table[0]
  for (const entry of table) {
    picked = entry
    x -= entry[1]
    if (x < 0) break
  }
  if (!picked) throw new Error('empty weight table')
  return picked[0]
}

const roleWeights: readonly (readonly [Role, number])[] = [
  ['learner', 70],
  ['instructor', 12],
  ['manager', 8],
  ['group_admin', 4],
  ['ecommerce_admin', 2],
  ['admin', 3],
  ['owner', 1],
]
const typeWeights: readonly (readonly [UserType, number])[] = [
  ['internal', 60],
  ['partner', 15],
  ['customer', 15],
  ['contractor', 7],
  ['volunteer', 3],
]
const firstNames = [
  'Ada',
  'Léa',
  'Omar',
  'Mei',
  'Noah',
  'Sofia',
  'Ravi',
  'Chloé',
  'Liam',
  'Amara',
  'Jonas',
  'Yuki',
]
const lastNames = [
  'Martin',
  'Tremblay',
  'Nguyen',
  'Singh',
  'Roy',
  'Côté',
  'Okafor',
  'Garcia',
  'Kim',
  'Dubois',
]

export function makeUsers(count: number, seed = 42): User[] {
  const rand = prng(seed)
  const start = Date.UTC(2023, 0, 1)
  const slot = (3 * 365 * 24 * 3600 * 1000) / count
  return Array.from({ length: count }, (_, i) => {
    const createdAt = new Date(start + i * slot + Math.floor(rand() * slot)).toISOString()
    const firstName = firstNames[Math.floor(rand() * firstNames.length)] ?? 'Ada'
    const lastName = lastNames[Math.floor(rand() * lastNames.length)] ?? 'Martin'
    const isActive = rand() < 0.85
    return {
      id: randomUUID(),
      email: `user${String(i).padStart(5, '0')}@bench.example.com`,
      firstName,
      lastName,
      role: weighted(rand, roleWeights),
      customRoleIds: [],
      isActive,
      userType: weighted(rand, typeWeights),
      externalId: rand() < 0.3 ? `EXT-${i}` : null,
      customFields: {},
      locale: rand() < 0.1 ? 'fr-CA' : 'en',
      groupIds: [],
      lastLoginAt: isActive && rand() < 0.6 ? createdAt : null,
      createdAt,
      updatedAt: createdAt,
    }
  })
}

function countBy(users: readonly User[], of: (u: User) => string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const u of users) out[of(u)] = (out[of(u)] ?? 0) + 1
  return out
}

export async function seedTenant(
  userCount: number,
  serviceHost: string,
): Promise<{ seeded: SeededTenant; report: SeedReport }> {
  const tenant = await createTenant({
    slug: `bench-${Date.now().toString(36)}`,
    plan: 'growth',
    name: 'Bench',
  })
  const scenarioKey = (await createApiKey(tenant, ['read', 'write', 'admin'])).key
  const timingKey = (await createApiKey(tenant, ['read', 'write', 'admin'])).key
  const users = makeUsers(userCount)
  const t = performance.now()
  const { metrics, done } = runWithDbMetrics(() => seedUsers(tenant, users, 16))
  await done
  const ms = performance.now() - t
  const cost = summarize(metrics)
  return {
    seeded: { tenant, host: `${tenant.slug}.${serviceHost}`, scenarioKey, timingKey, users },
    report: {
      users: users.length,
      items: users.length * 2,
      batchWriteCalls: metrics.calls.filter((c) => c.op === 'BatchWriteItem').length,
      wcu: cost.wcu,
      ms: Math.round(ms),
      usersPerSecond: Math.round((users.length / ms) * 1000),
      roles: countBy(users, (u) => u.role),
      userTypes: countBy(users, (u) => u.userType),
      active: users.filter((u) => u.isActive).length,
    },
  }
}
