/** The CLI's commands: each parses its flags, calls a service, and returns what is printed. */
import * as v from 'valibot'
import { toUserResource } from '../functions/users/representation.ts'
import { toGroupResource } from '../functions/groups/representation.ts'
import { toCourseResource, toCourseSettings } from '../functions/courses/representation.ts'
import { toEnrollmentResource, toProgress } from '../functions/enrollments/representation.ts'
import type { CourseSettings } from '../shared/domain/courses/course.ts'
import { operator } from '../shared/domain/actor.ts'
import { ValidationError } from '../shared/domain/errors.ts'
import { dynamicRuleAttributes, type DynamicRule } from '../shared/domain/groups/group.ts'
import type { Tenant } from '../shared/domain/tenants/tenant.ts'
import {
  CUSTOM_FIELD_KEY,
  customFieldTypes,
  type CustomFieldType,
} from '../shared/domain/users/custom-fields.ts'
import { CreateUserInput } from '../shared/domain/users/user-schemas.ts'
import { parseOrThrow } from '../shared/domain/validation.ts'
import type { ApiKeyRecord } from '../shared/store/api-keys-store.ts'
import { listCustomFieldDefs, putCustomFieldDef } from '../shared/store/users-store.ts'
import * as courses from '../shared/services/courses-service.ts'
import * as enrollments from '../shared/services/enrollments-service.ts'
import * as learner from '../shared/services/learner-service.ts'
import * as webhooks from '../shared/services/webhooks-service.ts'
import type { WebhookDelivery, WebhookEndpoint } from '../shared/domain/webhooks/webhook.ts'
import { deliveryStatuses, type DeliveryStatus } from '../shared/domain/webhooks/webhook.ts'
import { lrsCommands } from './lrs-commands.ts'
import * as groups from '../shared/services/groups-service.ts'
import * as tenants from '../shared/services/tenants-service.ts'
import * as users from '../shared/services/users-service.ts'
import { onOff, required, UsageError, type Parsed } from './args.ts'

type Flags = ReadonlyMap<string, string>
type Command = (flags: Flags) => Promise<unknown>

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
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }
}

function keyView(k: ApiKeyRecord) {
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

function at(flags: Flags): string | undefined {
  const raw = flags.get('at')
  if (raw === undefined) return undefined
  if (Number.isNaN(Date.parse(raw))) throw new ValidationError('at', '--at must be an ISO 8601 timestamp')
  return new Date(raw).toISOString()
}

const tenantOf = (flags: Flags) => tenants.requireTenant(required(flags, 'tenant'))

function optionalInt(flags: Flags, name: string): number | null | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  if (raw === 'none' || raw === 'plan') return null
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} takes a whole number (or none)`)
  return Number(raw)
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
      }),
    ),
  'tenant get': async (f) => tenantView(await tenantOf(f)),

  'api-key create': async (f) => {
    const tenant = await tenantOf(f)
    const env = f.get('env') ?? 'live'
    if (env !== 'live' && env !== 'test') throw new UsageError('--env takes live or test')
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
    const def = {
      key,
      label: f.get('label') ?? key,
      type: type as CustomFieldType,
      required: f.has('required'),
      options,
    }
    await putCustomFieldDef(tenant, def)
    return def
  },
  'custom-field list': async (f) => ({ data: await listCustomFieldDefs(await tenantOf(f)) }),

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
    const group = await groups.createGroup(
      tenant,
      { name: required(f, 'name'), description: f.get('description') ?? null },
      rule,
    )
    return { ...toGroupResource(group), rule: group.rule }
  },
}

function optionalTimestamp(flags: Flags, name: string): string | null | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  if (raw === 'none') return null
  if (Number.isNaN(Date.parse(raw))) throw new UsageError(`--${name} takes an ISO 8601 timestamp (or none)`)
  return new Date(raw).toISOString()
}

function optionalNumber(flags: Flags, name: string): number | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`--${name} takes a non-negative number`)
  return n
}

function settingsFrom(f: Flags): Partial<CourseSettings> & { category?: string } {
  const out: Partial<Record<keyof CourseSettings, unknown>> & { category?: string } = {
    requiresApproval: onOff(f, 'requires-approval'),
    seatLimit: optionalInt(f, 'seat-limit'),
    waitlist: onOff(f, 'waitlist'),
    enrollmentOpensAt: optionalTimestamp(f, 'enrollment-opens-at'),
    enrollmentClosesAt: optionalTimestamp(f, 'enrollment-closes-at'),
    prerequisites: f.has('prerequisites')
      ? (f.get('prerequisites') ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x && x !== 'none' && x !== 'true')
      : undefined,
    language: f.get('language'),
    certificateValidityDays: optionalInt(f, 'certificate-validity-days'),
    ceu: optionalNumber(f, 'ceu'),
    requiresSessionSelection: onOff(f, 'requires-session-selection'),
    category: f.get('category'),
  }
  return Object.fromEntries(
    Object.entries(out).filter(([, v]) => v !== undefined),
  ) as Partial<CourseSettings> & {
    category?: string
  }
}

const courseCommands: Record<string, Command> = {
  'course create': async (f) => {
    const tenant = await tenantOf(f)
    const course = await courses.createCourse(
      tenant,
      { title: required(f, 'title'), description: f.get('description') ?? null },
      { withVersion: !f.has('no-version') },
      at(f),
    )
    return toCourseResource(course)
  },
  'course configure': async (f) => {
    const tenant = await tenantOf(f)
    const course = await courses.configureCourse(tenant, required(f, 'course'), settingsFrom(f))
    const category = await courses.categoryOf(tenant, course)
    return toCourseSettings(course, category?.name ?? null)
  },
  'category create': async (f) => courses.ensureCategory(await tenantOf(f), required(f, 'name')),
  'course publish': async (f) =>
    toCourseResource(
      await courses.updateCourse(await tenantOf(f), required(f, 'course'), { status: 'published' }, at(f)),
    ),
  'course archive': async (f) =>
    toCourseResource(
      await courses.updateCourse(await tenantOf(f), required(f, 'course'), { status: 'archived' }, at(f)),
    ),
}

function number(flags: Flags, name: string, fallback?: number): number | undefined {
  const raw = flags.get(name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number`)
  return n
}

const activity =
  (kind: 'start' | 'progress' | 'complete'): Command =>
  async (f) =>
    toProgress(
      await learner.recordActivity(await tenantOf(f), required(f, 'enrollment'), {
        moduleId: required(f, 'module'),
        kind,
        score: number(f, 'score') ?? null,
        timeSpentSeconds: number(f, 'time-spent'),
        at: at(f),
      }),
    )

const learnerCommands: Record<string, Command> = {
  'learner enroll': async (f) =>
    toEnrollmentResource(
      await enrollments.createEnrollment(
        await tenantOf(f),
        {
          userId: required(f, 'user'),
          courseId: required(f, 'course'),
          dueDate: optionalTimestamp(f, 'due-date') ?? null,
        },
        'app',
      ),
    ),
  'learner start-module': activity('start'),
  'learner progress-module': activity('progress'),
  'learner complete-module': activity('complete'),
  'learner download': async (f) =>
    toProgress(
      await learner.recordDownload(
        await tenantOf(f),
        required(f, 'enrollment'),
        required(f, 'module'),
        at(f),
      ),
    ),
  'learner quiz-attempt': async (f) => {
    const passing = number(f, 'passing-score')
    const { attempt, progress } = await learner.gradeQuizAttempt(
      await tenantOf(f),
      required(f, 'enrollment'),
      {
        moduleId: required(f, 'module'),
        raw: number(f, 'score') ?? Number.NaN,
        max: number(f, 'max', 100) ?? 100,
        passingScaled: passing === undefined ? undefined : passing / 100,
        timeSpentSeconds: number(f, 'time-spent'),
        at: at(f),
      },
    )
    return {
      attempt: {
        raw: attempt.raw,
        max: attempt.max,
        scaled: attempt.scaled,
        passed: attempt.passed,
        graded_at: attempt.gradedAt,
      },
      progress: toProgress(progress),
    }
  },
  'completion import': async (f) => {
    const completedAt = optionalTimestamp(f, 'completed-at')
    if (!completedAt) throw new UsageError('--completed-at is required (ISO 8601)')
    return toEnrollmentResource(
      await learner.importCompletion(await tenantOf(f), {
        userId: required(f, 'user'),
        courseId: required(f, 'course'),
        completedAt,
        score: number(f, 'score') ?? null,
      }),
    )
  },
}

function endpointView(e: WebhookEndpoint) {
  return { id: e.id, url: e.url, events: e.events, created_at: e.createdAt }
}

function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event: d.event,
    event_id: d.eventId,
    status: d.status,
    http_status: d.httpStatus,
    attempts: d.attempts,
    reason: d.reason,
    response_body: d.responseBody,
    payload: d.payload,
    retry_of: d.retryOf,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  }
}

const webhookCommands: Record<string, Command> = {
  'webhook create': async (f) => {
    const events = required(f, 'events')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
    const { endpoint, secret } = await webhooks.createEndpoint(await tenantOf(f), required(f, 'url'), events)
    return { ...endpointView(endpoint), secret }
  },
  'webhook list': async (f) => ({
    data: (await webhooks.listLiveEndpoints(await tenantOf(f))).map(endpointView),
  }),
  'webhook delete': async (f) => {
    const id = required(f, 'id')
    return { id, deleted_at: await webhooks.deleteEndpoint(await tenantOf(f), id) }
  },
  'webhook deliveries': async (f) => {
    const status = f.get('status')
    if (status !== undefined && !(deliveryStatuses as readonly string[]).includes(status)) {
      throw new UsageError(`--status takes ${deliveryStatuses.join(', ')}`)
    }
    const list = await webhooks.listDeliveries(await tenantOf(f), {
      status: status as DeliveryStatus | undefined,
      event: f.get('event'),
    })
    return { data: list.map(deliveryView) }
  },
  'webhook retry': async (f) =>
    deliveryView(await webhooks.retryNow(await tenantOf(f), required(f, 'delivery'), 'operator-cli')),
}

export async function run(args: Parsed): Promise<unknown> {
  const name = args.words.slice(0, 2).join(' ')
  const groupsOfCommands = [commands, courseCommands, learnerCommands, webhookCommands, lrsCommands]
  const command = groupsOfCommands.map((g) => g[name]).find((c) => c !== undefined)
  if (!command) {
    throw new UsageError(
      `Unknown command "${name}". Commands: ${groupsOfCommands
        .flatMap((g) => Object.keys(g))
        .sort()
        .join('; ')}`,
    )
  }
  return command(args.flags)
}
