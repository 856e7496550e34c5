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
import { eventCommands } from './event-commands.ts'
import { mailCommands } from './mail-commands.ts'
import { dlqCommands } from './dlq-commands.ts'
import { lifecycleCommands } from './lifecycle-commands.ts'
import { skillCommands } from './skills-commands.ts'
import { secretCommands } from './secret-commands.ts'
import { migrateCommands } from './migrate-commands.ts'
import { at, optionalInt, tenantOf, command, type Command } from './flags.ts'
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
  'tenant create': command(
    '--slug S --plan free|starter|growth|enterprise [--kind customer|demo|sandbox|training] [--name N]',
    'create a tenant',
    async (f) =>
      tenantView(
        await tenants.createTenant({
          slug: required(f, 'slug'),
          plan: required(f, 'plan'),
          kind: f.get('kind'),
          name: f.get('name'),
        }),
      ),
  ),
  'tenant update': command(
    '--tenant S [--plan P] [--status S] [--skills-planning on|off] [--monthly-api-cap N|none] [--name N] [--period-start ISO|none]',
    "change a tenant's plan, status, limits, name or billing period start",
    async (f) =>
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
  ),
  'tenant get': command('--tenant S', 'show a tenant', async (f) => tenantView(await tenantOf(f))),
  'contact list': command(
    '[--limit N]',
    'messages sent through POST /api/v1/contact, newest first',
    async (f) => ({
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
  ),

  'api-key create': command(
    '--tenant S --scopes read,write,admin [--env live|test] [--expires-at ISO]',
    'issue an API key (the only time the key is shown)',
    async (f) => {
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
  ),
  'api-key revoke': command('--tenant S --id ID', 'revoke an API key', async (f) => {
    const record = await tenants.revokeApiKey(await tenantOf(f), required(f, 'id'))
    return { id: record.id, revoked_at: record.revokedAt }
  }),
  'api-key list': command('--tenant S', "a tenant's API keys, without the keys", async (f) => ({
    data: (await tenants.listApiKeys(await tenantOf(f))).map(keyView),
  })),

  'learner login': command('--tenant S --user ID [--at ISO]', 'record a sign-in', async (f) => {
    const user = await users.recordLogin(await tenantOf(f), required(f, 'user'), at(f))
    return { user_id: user.id, last_login_at: user.lastLoginAt }
  }),

  'user create': command(
    '--tenant S --email E --first-name F --last-name L --role R [--inactive] [--user-type T] [--external-id X] [--locale L] [--custom-fields JSON] [--at ISO]',
    'create a user (the same rules and seat cap as the API)',
    async (f) => {
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
  ),
  'user get': command('--tenant S --id ID', 'show a user', async (f) =>
    toUserResource(await users.getUser(await tenantOf(f), required(f, 'id'))),
  ),
  'user erase': command(
    '--tenant S --id ID [--at ISO]',
    'erase a learner (docs/decisions/0010-erasure.md)',
    async (f) => {
      const erased = await eraseLearner(await tenantOf(f), required(f, 'id'), 'operator-cli', at(f))
      return { id: erased.userId, erased_at: erased.erasedAt, statements_deleted: erased.statementsDeleted }
    },
  ),

  'custom-field create': command(
    `--tenant S --key K [--type ${customFieldTypes.join('|')}] [--options a,b] [--required] [--label L]`,
    'define a user custom field',
    async (f) => {
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
  ),
  'custom-field list': command('--tenant S', "a tenant's user custom fields", async (f) => ({
    data: await customFields.listCustomFields(await tenantOf(f)),
  })),

  'group create': command(
    '--tenant S --name N [--description D] [--rule-attribute role|user_type --rule-equals V]',
    'create a group (a rule makes it dynamic)',
    async (f) => {
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
  ),
}

/**
 * The CLI's one command table: every command by its name, in the order of its family. `run` finds
 * commands here and `lms --help` lists them from here (cli/help.ts).
 */
export const commandTable: ReadonlyMap<string, Command> = (() => {
  const table = new Map<string, Command>()
  const families = [
    commands,
    courseCommands,
    learnerCommands,
    webhookCommands,
    eventCommands,
    lrsCommands,
    ltiCommands,
    mailCommands,
    dlqCommands,
    lifecycleCommands,
    skillCommands,
    secretCommands,
    migrateCommands,
  ]
  for (const [name, command] of families.flatMap((f) => Object.entries(f))) {
    if (table.has(name)) throw new Error(`Two CLI commands are named "${name}"`)
    table.set(name, command)
  }
  return table
})()

/** The command the words name: three-word commands (`lti deployment add`) before two-word ones. */
export function findCommand(words: readonly string[]): { name: string; command: Command } | undefined {
  for (const length of [3, 2]) {
    if (words.length < length) continue
    const name = words.slice(0, length).join(' ')
    const command = commandTable.get(name)
    if (command) return { name, command }
  }
  return undefined
}

export async function run(args: Parsed): Promise<unknown> {
  const found = findCommand(args.words)
  if (!found) {
    const name = args.words.slice(0, 2).join(' ')
    throw new UsageError(
      `Unknown command "${name}" (lms --help lists them). Commands: ${[...commandTable.keys()].sort().join('; ')}`,
    )
  }
  return found.command.run(args.flags, args.words)
}
