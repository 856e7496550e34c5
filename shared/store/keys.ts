/**
 * The only place that composes table keys. Tenant-owned items live in the tenant's partition
 * (`T#<tenantId>`), so a lookup with another tenant's id finds nothing. The few global items
 * (slug → tenant, key hash → key, rate windows) are addressed by values only their owner holds.
 */
import type { TenantContext } from '../domain/tenants/tenant.ts'

export interface Key {
  readonly pk: string
  readonly sk: string
}

const tp = (tenant: Pick<TenantContext, 'id'>): string => `T#${tenant.id}`

export const keys = {
  tenantBySlug: (slug: string): Key => ({ pk: `TENANT#${slug}`, sk: 'TENANT' }),
  tenantIdToSlug: (tenantId: string): Key => ({ pk: `TENANTID#${tenantId}`, sk: 'TENANT' }),
  apiKeyByHash: (hash: string): Key => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' }),
  rateWindow: (keyId: string, windowStart: number): Key => ({ pk: `RL#${keyId}#${windowStart}`, sk: 'RL' }),

  tenantPartition: tp,
  counters: (t: TenantContext): Key => ({ pk: tp(t), sk: 'COUNTERS' }),
  monthlyUsage: (t: TenantContext, month: string): Key => ({ pk: tp(t), sk: `USAGE#${month}` }),
  apiKeyRef: (t: TenantContext, keyId: string): Key => ({ pk: tp(t), sk: `APIKEYREF#${keyId}` }),
  apiKeyRefPrefix: 'APIKEYREF#',

  user: (t: TenantContext, userId: string): Key => ({ pk: tp(t), sk: `USER#${userId}` }),
  /** The user item and its group edges share this prefix, so one Query reads both. */
  userWithEdgesPrefix: (userId: string): string => `USER#${userId}`,
  userEmail: (t: TenantContext, emailLower: string): Key => ({ pk: tp(t), sk: `EMAIL#${emailLower}` }),
  usersIndexPk: (t: TenantContext): string => `${tp(t)}#USERS`,
  usersByCreated: (createdAt: string, userId: string): string => `${createdAt}#${userId}`,
  usersByLastName: (lastName: string, userId: string): string => `${lastName.toLowerCase()}#${userId}`,
  usersByEmail: (emailLower: string, userId: string): string => `${emailLower}#${userId}`,

  group: (t: TenantContext, groupId: string): Key => ({ pk: tp(t), sk: `GROUP#${groupId}` }),
  groupPrefix: 'GROUP#',
  groupName: (t: TenantContext, nameLower: string): Key => ({ pk: tp(t), sk: `GROUPNAME#${nameLower}` }),
  groupMember: (t: TenantContext, groupId: string, userId: string): Key => ({
    pk: tp(t),
    sk: `GMEMBER#${groupId}#${userId}`,
  }),
  groupMemberPrefix: (groupId: string): string => `GMEMBER#${groupId}#`,
  userGroupEdge: (t: TenantContext, userId: string, groupId: string): Key => ({
    pk: tp(t),
    sk: `USER#${userId}#GROUP#${groupId}`,
  }),

  customField: (t: TenantContext, key: string): Key => ({ pk: tp(t), sk: `CFIELD#${key}` }),
  customFieldPrefix: 'CFIELD#',
  customRole: (t: TenantContext, roleId: string): Key => ({ pk: tp(t), sk: `CROLE#${roleId}` }),

  outboxPrefix: 'OUTBOX#',
  outboxEvent: (t: TenantContext, createdAt: string, eventId: string): Key => ({
    pk: tp(t),
    sk: `OUTBOX#${createdAt}#${eventId}`,
  }),
} as const

/** Index names and their key attributes, shared by the store and the CDK table definition. */
export const indexes = {
  byCreated: { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
  byName: { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
  byEmail: { name: 'gsi3', pk: 'gsi3pk', sk: 'gsi3sk' },
} as const

export const TTL_ATTRIBUTE = 'ttl'
