/** Tenants and API keys: operator work (the CLI), and the per-request lookups of the HTTP stack. */
import { randomUUID } from 'node:crypto'
import { keyEnvFor } from '../../domain/api-keys/environment.ts'
import { generateKey, type KeyEnv } from '../../domain/api-keys/key-format.ts'
import { ConflictError, NotFoundError, ValidationError, type PlanId } from '../../domain/errors.ts'
import { isPlanId } from '../../domain/plans/catalog.ts'
import {
  OrganizationName,
  SLUG_PATTERN,
  tenantKinds,
  tenantStatuses,
  type Tenant,
  type TenantKind,
  type TenantStatus,
} from '../../domain/tenants/tenant.ts'
import { SEEDED_ROLES, type Locale, type User } from '../../domain/users/user.ts'
import { parseOrThrow, utcInstant } from '../../domain/validation.ts'
import type { Scope } from '../../routes.ts'
import {
  insertApiKey,
  listApiKeys as listStoredKeys,
  revokeApiKey as revokeStoredKey,
  type ApiKeyRecord,
} from '../../store/tenants/api-keys-store.ts'
import { isRefused } from '../../store/core/store-errors.ts'
import {
  getTenantBySlug,
  insertTenant,
  updateTenant as updateStoredTenant,
  type TenantChanges,
  type TenantRefusal,
} from '../../store/tenants/tenants-store.ts'

const nowIso = () => new Date().toISOString()

export interface CreateTenantInput {
  readonly slug: string
  readonly plan: string
  readonly kind?: string
  readonly name?: string
}

function checkPlan(plan: string): PlanId {
  if (!isPlanId(plan))
    throw new ValidationError('plan', 'plan must be one of free, starter, growth, enterprise')
  return plan
}

export async function createTenant(input: CreateTenantInput, at = nowIso()): Promise<Tenant> {
  return (await insertNewTenant(input, at)).tenant
}

/** The tenant and its first account, its owner, written together: a sign-up is all or nothing. */
export async function createTenantWithOwner(
  input: CreateTenantInput,
  owner: TenantOwnerInput,
  at = nowIso(),
): Promise<{ tenant: Tenant; owner: User }> {
  const created = await insertNewTenant(input, at, owner)
  if (!created.owner) throw new Error('The owner was not created')
  return { tenant: created.tenant, owner: created.owner }
}

export interface TenantOwnerInput {
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  readonly locale: Locale
}

async function insertNewTenant(
  input: CreateTenantInput,
  at: string,
  ownerInput?: TenantOwnerInput,
): Promise<{ tenant: Tenant; owner?: User }> {
  const slug = input.slug.toLowerCase()
  if (!SLUG_PATTERN.test(slug))
    throw new ValidationError('slug', 'slug must be lowercase letters, digits and hyphens')
  const kind = input.kind ?? 'customer'
  if (!(tenantKinds as readonly string[]).includes(kind)) {
    throw new ValidationError('kind', `kind must be one of ${tenantKinds.join(', ')}`)
  }
  const tenant: Tenant = {
    id: randomUUID(),
    slug,
    name: input.name === undefined ? slug : parseOrThrow(OrganizationName, input.name, 'name'),
    plan: checkPlan(input.plan),
    kind: kind as TenantKind,
    status: 'active',
    skillsPlanning: false,
    monthlyApiCap: null,
    periodStart: null,
    createdAt: at,
    updatedAt: at,
  }
  const owner: User | undefined = ownerInput && {
    id: randomUUID(),
    email: ownerInput.email,
    firstName: ownerInput.firstName,
    lastName: ownerInput.lastName,
    role: 'owner',
    customRoleIds: [],
    isActive: true,
    userType: 'internal',
    externalId: null,
    customFields: {},
    locale: ownerInput.locale,
    groupIds: [],
    lastLoginAt: null,
    createdAt: at,
    updatedAt: at,
  }
  // No user.created for the owner: document 001 leaves the initial owner account out of it.
  try {
    await insertTenant({ tenant, seededRoles: SEEDED_ROLES, ...(owner ? { owner } : {}) })
  } catch (err) {
    if (isRefused<TenantRefusal>(err, 'slug_taken'))
      throw new ConflictError('tenant.slug_taken', `A tenant with slug ${slug} exists`)
    throw err
  }
  return { tenant, ...(owner ? { owner } : {}) }
}

/** The tenant of a slug (any case), or undefined. */
export function findTenant(slug: string): Promise<Tenant | undefined> {
  return getTenantBySlug(slug.toLowerCase())
}

/** @throws NotFoundError ('tenant') when no tenant has this slug */
export async function requireTenant(slug: string): Promise<Tenant> {
  const tenant = await findTenant(slug)
  if (!tenant) throw new NotFoundError('tenant')
  return tenant
}

export interface UpdateTenantInput {
  readonly plan?: string
  readonly status?: string
  readonly skillsPlanning?: boolean
  readonly monthlyApiCap?: number | null
  readonly name?: string
  /** An ISO timestamp, or null for none (the calendar month). */
  readonly periodStart?: string | null
}

export async function updateTenant(slug: string, input: UpdateTenantInput, at = nowIso()): Promise<Tenant> {
  if (input.status !== undefined && !(tenantStatuses as readonly string[]).includes(input.status)) {
    throw new ValidationError('status', `status must be one of ${tenantStatuses.join(', ')}`)
  }
  const changes: TenantChanges = {
    ...(input.plan !== undefined ? { plan: checkPlan(input.plan) } : {}),
    ...(input.status !== undefined ? { status: input.status as TenantStatus } : {}),
    ...(input.skillsPlanning !== undefined ? { skillsPlanning: input.skillsPlanning } : {}),
    ...(input.monthlyApiCap !== undefined ? { monthlyApiCap: input.monthlyApiCap } : {}),
    ...(input.name !== undefined ? { name: parseOrThrow(OrganizationName, input.name, 'name') } : {}),
    ...(input.periodStart !== undefined ? { periodStart: checkPeriodStart(input.periodStart) } : {}),
  }
  const tenant = await updateStoredTenant(slug.toLowerCase(), changes, at)
  if (!tenant) throw new NotFoundError('tenant')
  return tenant
}

function checkPeriodStart(value: string | null): string | null {
  if (value === null) return null
  const instant = utcInstant(value)
  if (instant === undefined)
    throw new ValidationError('period_start', 'period_start must be an ISO 8601 timestamp, or none')
  return instant
}

const scopeOrder: readonly Scope[] = ['read', 'write', 'admin']

export interface CreatedKey {
  readonly record: ApiKeyRecord
  /** Shown once, here; only its hash is stored. */
  readonly key: string
}

export async function createApiKey(
  tenant: Tenant,
  scopes: readonly string[],
  askedEnv: KeyEnv | undefined = undefined,
  expiresAt: string | null = null,
  at = nowIso(),
): Promise<CreatedKey> {
  const unknown = scopes.find((s) => !(scopeOrder as readonly string[]).includes(s))
  if (unknown !== undefined || scopes.length === 0) {
    throw new ValidationError('scopes', 'scopes must be a comma-separated list of read, write, admin')
  }
  const expires = expiresAt === null ? null : utcInstant(expiresAt)
  if (expires === undefined) {
    throw new ValidationError('expires_at', 'expires_at must be an ISO 8601 timestamp')
  }
  const env = keyEnvFor(tenant.kind, askedEnv)
  const generated = generateKey(env)
  const record: ApiKeyRecord = {
    id: randomUUID(),
    tenantId: tenant.id,
    prefix: generated.prefix,
    hash: generated.hash,
    env,
    scopes: scopeOrder.filter((s) => scopes.includes(s)),
    expiresAt: expires,
    revokedAt: null,
    createdAt: at,
  }
  await insertApiKey(tenant, record)
  return { record, key: generated.key }
}

export async function revokeApiKey(tenant: Tenant, id: string, at = nowIso()): Promise<ApiKeyRecord> {
  const record = await revokeStoredKey(tenant, id, at)
  if (!record) throw new NotFoundError('api_key')
  return record
}

export type { ApiKeyRecord }

export function listApiKeys(tenant: Tenant): Promise<ApiKeyRecord[]> {
  return listStoredKeys(tenant)
}
