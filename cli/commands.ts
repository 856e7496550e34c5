/**
 * The CLI's commands: each parses its flags, calls a service, and returns what is printed. Tenants,
 * keys, users and groups live here; the other families in their own files.
 */
import * as v from 'valibot'
import { toUserResource } from '../functions/users/representation.ts'
import { toGroupResource } from '../functions/groups/representation.ts'
import { operator } from '../shared/domain/actor.ts'
import { CreateGroupInput, dynamicRuleAttributes, type DynamicRule } from '../shared/domain/groups/group.ts'
import type { Tenant } from '../shared/domain/tenants/tenant.ts'
import { CUSTOM_FIELD_KEY, customFieldTypes } from '../shared/domain/users/custom-fields.ts'
import { CreateUserInput } from '../shared/domain/users/user-schemas.ts'
import { parseOrThrow } from '../shared/domain/validation.ts'
import { lrsCommands } from './lrs-commands.ts'
import { ltiCommands } from './lti-commands.ts'
import { courseCommands, learnerCommands } from './learning-commands.ts'
import { webhookCommands } from './webhook-commands.ts'
import { mailCommands } from './mail-commands.ts'
import { dlqCommands } from './dlq-commands.ts'
import { lifecycleCommands } from './lifecycle-commands.ts'
import { skillCommands } from './skills-commands.ts'
import { secretCommands } from './secret-commands.ts'
import { migrateCommands } from './migrate-commands.ts'
import { at, optionalInt, tenantOf, type Command } from './flags.ts'
import * as groups from '../shared/services/groups/groups-service.ts'
import * as tenants from '../shared/services/tenants/tenants-service.ts'
import * as users from '../shared/services/users/users-service.ts'
import * as customFields from '../shared/services/users/custom-fields-service.ts'
import * as visitors from '../shared/services/tenants/visitors-service.ts'
import { eraseLearner } from '../shared/services/users/erasure-service.ts'
import { onOff, required, UsageError, type Parsed } from './args.ts'

function tenantView(t: Tenant) {
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    plan: t.plan,
    kind: t.kind,
    status: t.status,
    skills_planning: t.skillsPlanning,
    monthly_api_cap: t.monthlyApiCap,
    period_start: t.periodStart,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }
}

function keyView(k: tenants.ApiKeyRecord) {
  return {
    id: k.id,
    prefix: k.prefix,
    env: k.env,
    scopes: k.scopes,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  }
}

const commands: Record<string, Command> = {
  'tenant create': async (f) =>
    tenantView(
      await tenants.createTenant({
        slug: required(f, 'slug'),
        plan: required(f, 'plan'),
        kind: f.get('kind'),
        name: f.get('name'),
      }),
    ),
  'tenant update': async (f) =>
    tenantView(
      await tenants.updateTenant(required(f, 'tenant'), {
        plan: f.get('plan'),
        status: f.get('status'),
        skillsPlanning: onOff(f, 'skills-planning'),
        monthlyApiCap: optionalInt(f, 'monthly-api-cap'),
        name: f.get('name'),
        periodStart: f.has('period-start')
          ? f.get('period-start') === 'none'
            ? null
            : (f.get('period-start') ?? '')
          : undefined,
      }),
    ),
  'tenant get': async (f) => tenantView(await tenantOf(f)),
  'contact list': async (f) => ({
    data: (await visitors.listContact(Math.min(500, Math.max(1, optionalInt(f, 'limit') ?? 50)))).map(
      (r) => ({
        id: r.id,
        name: r.name,
        email: r.email,
        company: r.company,
        subject: r.subject,
        message: r.message,
        received_at: r.receivedAt,
      }),
    ),
  }),

  'api-key create': async (f) => {
    const tenant = await tenantOf(f)
    const env = f.get('env')
    if (env !== undefined && env !== 'live' && env !== 'test')
      throw new UsageError('--env takes live or test')
    const scopes = required(f, 'scopes')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const { record, key } = await tenants.createApiKey(tenant, scopes, env, f.get('expires-at') ?? null)
    return {
      id: record.id,
      key,
      prefix: record.prefix,
      scopes: record.scopes,
      env: record.env,
      expires_at: record.expiresAt,
    }
  },
  'api-key revoke': async (f) => {
    const record = await tenants.revokeApiKey(await tenantOf(f), required(f, 'id'))
    return { id: record.id, revoked_at: record.revokedAt }
  },
  'api-key list': async (f) => ({ data: (await tenants.listApiKeys(await tenantOf(f))).map(keyView) }),

  'learner login': async (f) => {
    const user = await users.recordLogin(await tenantOf(f), required(f, 'user'), at(f))
    return { user_id: user.id, last_login_at: user.lastLoginAt }
  },

  'user create': async (f) => {
    const input = parseOrThrow(CreateUserInput, {
      email: f.get('email'),
      first_name: f.get('first-name'),
      last_name: f.get('last-name'),
      role: f.get('role'),
      ...(f.has('inactive') ? { is_active: false } : {}),
      ...(f.has('user-type') ? { user_type: f.get('user-type') } : {}),
      ...(f.has('external-id') ? { external_id: f.get('external-id') } : {}),
      ...(f.has('locale') ? { locale: f.get('locale') } : {}),
      ...(f.has('custom-fields')
        ? { custom_fields: JSON.parse(f.get('custom-fields') ?? '{}') as unknown }
        : {}),
    })
    return toUserResource(await users.createUser(await tenantOf(f), input, operator, at(f)))
  },
  'user get': async (f) => toUserResource(await users.getUser(await tenantOf(f), required(f, 'id'))),
  'user erase': async (f) => {
    const erased = await eraseLearner(await tenantOf(f), required(f, 'id'), 'operator-cli', at(f))
    return { id: erased.userId, erased_at: erased.erasedAt, statements_deleted: erased.statementsDeleted }
  },

  'custom-field create': async (f) => {
    const tenant = await tenantOf(f)
    const key = required(f, 'key')
    if (!CUSTOM_FIELD_KEY.test(key))
      throw new UsageError('--key must be lowercase letters, digits and underscores')
    const type = f.get('type') ?? 'string'
    if (!(customFieldTypes as readonly string[]).includes(type)) {
      throw new UsageError(`--type takes one of ${customFieldTypes.join(', ')}`)
    }
    const options = (f.get('options') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    if (type === 'select' && options.length === 0)
      throw new UsageError('--options is required for a select field')
    return customFields.defineCustomField(tenant, {
      key,
      label: f.get('label') ?? key,
      type,
      required: f.has('required'),
      options,
    })
  },
  'custom-field list': async (f) => ({ data: await customFields.listCustomFields(await tenantOf(f)) }),

  'group create': async (f) => {
    const tenant = await tenantOf(f)
    const attribute = f.get('rule-attribute')
    let rule: DynamicRule | null = null
    if (attribute !== undefined) {
      const parsed = v.safeParse(v.picklist(dynamicRuleAttributes), attribute)
      if (!parsed.success)
        throw new UsageError(`--rule-attribute takes ${dynamicRuleAttributes.join(' or ')}`)
      rule = { attribute: parsed.output, equals: required(f, 'rule-equals') }
    }
    const input = parseOrThrow(CreateGroupInput, {
      name: required(f, 'name'),
      description: f.get('description') ?? null,
    })
    const group = await groups.createGroup(tenant, input, rule)
    return { ...toGroupResource(group), rule: group.rule }
  },
  ...skillCommands,
}

export async function run(args: Parsed): Promise<unknown> {
  const groupsOfCommands = [
    commands,
    courseCommands,
    learnerCommands,
    webhookCommands,
    lrsCommands,
    ltiCommands,
    mailCommands,
    dlqCommands,
    lifecycleCommands,
    skillCommands,
    secretCommands,
    migrateCommands,
  ]
  // Three-word commands (`lti deployment add`) before two-word ones.
  const find = (n: string) => groupsOfCommands.map((g) => g[n]).find((c) => c !== undefined)
  const three = args.words.slice(0, 3).join(' ')
  const name = args.words.length >= 3 && find(three) ? three : args.words.slice(0, 2).join(' ')
  const command = find(name)
  if (!command) {
    throw new UsageError(
      `Unknown command "${name}". Commands: ${groupsOfCommands
        .flatMap((g) => Object.keys(g))
        .sort()
        .join('; ')}`,
    )
  }
  return command(args.flags, args.words)
}
