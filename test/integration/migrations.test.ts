/**
 * The migration runner through `lms migrate` (docs/decisions/0033-migrations.md): items in the
 * shapes written before decisions 0018/0022-0026 and 0028 are brought to the current shape, so the
 * reports read over HTTP give what they give for data written today; twice on the same data gives
 * the same; a run stopped after a page resumes to the same result; a second runner is refused.
 *
 * Every run is scoped to the test's own tenant (`--tenant`): the table is shared with the other
 * test files, whose items must not be touched, and the whole table's migration state is left alone.
 */
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { doc, tableName } from '../../local/sdk-clients.ts'
import { gradeQuizAttempt, importCompletion } from '../../shared/services/enrollments/learner-service.ts'
import { recordLogin } from '../../shared/services/users/users-service.ts'
import { handler as migrationsLambda } from '../../functions/workers/migrations/handler.ts'
import { keys } from '../../shared/store/core/keys.ts'
import { claimMigration, releaseMigration } from '../../shared/store/migrations/migration-state-store.ts'
import { lms } from '../helpers/cli.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { storedItem } from '../helpers/stored-item.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const REPORT_KEYS = '2026-11-report-keys'

/** The report pages a tenant's history shows in: every aggregate of 0018 and 0022-0026 is read by one. */
const reportPaths = [
  '/api/v1/reports/courses/performance',
  '/api/v1/reports/courses/performance?period_start=2026-01-01T00:00:00.000Z&period_end=2027-01-01T00:00:00.000Z',
  '/api/v1/reports/completions?per_page=100',
  '/api/v1/reports/completions?completed_after=2026-03-01T00:00:00.000Z&pass_fail=pass',
  '/api/v1/reports/completions?sort_by=score&sort_order=desc',
  '/api/v1/reports/enrollments?enrolled_after=2026-01-01T00:00:00.000Z',
  '/api/v1/reports/enrollments?status=active',
  '/api/v1/reports/compliance',
  '/api/v1/reports/compliance?status=expiring_soon',
  '/api/v1/reports/users/activity?active_after=2026-01-01T00:00:00.000Z&active_before=2027-01-01T00:00:00.000Z',
  '/api/v1/reports/users/activity?active_after=2026-01-01T00:00:00.000Z&active_before=2027-01-01T00:00:00.000Z&include_inactive=true',
]

async function reports(t: TestTenant): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const path of reportPaths) {
    const r = await t.api.get(path)
    expect(r.status, path).toBe(200)
    out[path] = { data: r.body.data, meta: r.body.meta }
  }
  return out
}

/**
 * A tenant's learning history of every kind the reports count: imported completions on past days,
 * live enrollments, graded completions with certificates (lasting and expiring soon), sign-ins.
 */
async function history(): Promise<TestTenant> {
  const t = await newTenant('growth')
  const quiz = { title: 'Check', module_type: 'quiz', is_required: true }
  const plain = await course(t)
  const lasting = await course(t, { modules: [quiz], settings: { certificateValidityDays: 365 } })
  const soon = await course(t, { modules: [quiz], settings: { certificateValidityDays: 10 } })
  const people = [await user(t), await user(t), await user(t), await user(t)].map((u) => u.id)
  const [a, b, c, d] = people as [string, string, string, string]
  await importCompletion(t.tenant, {
    userId: a,
    courseId: plain.id,
    completedAt: '2026-03-10T10:00:00.000Z',
    score: 80,
  })
  await importCompletion(t.tenant, {
    userId: b,
    courseId: plain.id,
    completedAt: '2026-03-11T12:30:00.000Z',
    score: 55,
  })
  await enroll(t, c, plain.id)
  for (const [who, target, raw] of [
    [a, lasting, 9],
    [b, lasting, 4],
    [c, soon, 8],
    [d, soon, 10],
  ] as const) {
    const e = await enroll(t, who, target.id)
    await gradeQuizAttempt(t.tenant, e.id, { moduleId: target.modules[0]?.id ?? '', raw, max: 10 })
  }
  await recordLogin(t.tenant, b, '2026-11-20T08:00:00.000Z')
  await recordLogin(t.tenant, d, '2026-11-25T09:00:00.000Z')
  return t
}

async function tenantItems(t: TestTenant): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = []
  let start: Record<string, unknown> | undefined
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.tenantPartition(t.tenant) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    )
    items.push(...(out.Items ?? []))
    start = out.LastEvaluatedKey
  } while (start)
  return items
}

const reportIndexAttributes = ['rpt1', 'rpt3', 'rpt4', 'rpt5', 'rpt6', 'rpt7'].flatMap((i) => [
  `${i}pk`,
  `${i}sk`,
])
const aggregatePrefixes = ['RPTCOURSE#', 'RPTCDAY#', 'RPTEXPIRY#', 'RPTHOUR#', 'UACT#', 'RPTACT#']

/**
 * The tenant's items as the code before decisions 0018 and 0022-0026 wrote them: enrollments and
 * users without report index keys or activity entries, no report aggregates, no `assign_none`.
 */
async function toOldShape(t: TestTenant): Promise<void> {
  for (const item of await tenantItems(t)) {
    const Key = { pk: item.pk, sk: item.sk }
    const sk = String(item.sk)
    if (aggregatePrefixes.some((p) => sk.startsWith(p))) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key }))
      continue
    }
    const remove =
      item.type === 'enrollment'
        ? [...reportIndexAttributes, 'a1', 'a2pk']
        : item.type === 'user'
          ? ['a1', 'a2pk']
          : sk === 'COUNTERS'
            ? ['assign_none']
            : []
    const present = remove.filter((name) => item[name] !== undefined)
    if (present.length === 0) continue
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key,
        UpdateExpression: `REMOVE ${present.map((_, i) => `#a${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(present.map((name, i) => [`#a${i}`, name])),
      }),
    )
  }
}

/** The tenant's migration states, as if its migrations had never run (the items stay as they are). */
async function forgetRuns(t: TestTenant): Promise<void> {
  const ids = (await lms('migrate', 'status', '--tenant', t.slug)).json.data.map((m: { id: string }) => m.id)
  for (const id of ids as string[]) {
    await doc.send(new DeleteCommand({ TableName: tableName, Key: keys.migration(id, t.tenant.id) }))
  }
}

async function migrate(t: TestTenant, ...flags: string[]) {
  const run = await lms('migrate', 'run', '--tenant', t.slug, ...flags)
  expect(run.code, run.stdout).toBe(0)
  return run.json as {
    migrations: {
      id: string
      outcome: string
      pages: number
      scanned: number
      changed: number
      skipped: number
    }[]
    more: boolean
  }
}

const reportKeysRun = (run: Awaited<ReturnType<typeof migrate>>) =>
  run.migrations.find((m) => m.id === REPORT_KEYS)

describe('lms migrate: the report keys and aggregates of items written before them', () => {
  it('gives the reports of data written today, and the same when run twice on the same data', async () => {
    // Prepare
    const t = await history()
    const today = await reports(t)
    await toOldShape(t)
    expect(await reports(t)).not.toEqual(today)

    // Act
    const first = await migrate(t)
    const afterFirst = await reports(t)
    const again = await migrate(t)
    await forgetRuns(t)
    const rerun = await migrate(t)
    const afterRerun = await reports(t)

    // Assess
    expect(first.more).toBe(false)
    expect(first.migrations.every((m) => m.outcome === 'done')).toBe(true)
    // 4 users, 3 courses, 7 enrollments.
    expect(reportKeysRun(first)).toMatchObject({ changed: 14, skipped: 0 })
    expect(afterFirst).toEqual(today)
    expect(again.migrations.every((m) => m.outcome === 'already_done')).toBe(true)
    expect(reportKeysRun(rerun)).toMatchObject({ outcome: 'done', changed: 0 })
    expect(afterRerun).toEqual(today)
    const status = await lms('migrate', 'status', '--tenant', t.slug)
    expect(status.code).toBe(0)
    for (const m of status.json.data) {
      expect(m).toMatchObject({ status: 'done', has_cursor: false, leased_until: null })
      expect(m.finished_at).toEqual(expect.any(String))
    }
  })

  it('resumes a run stopped after one page where it stopped, to the same reports', async () => {
    // Prepare
    const t = await history()
    const today = await reports(t)
    await toOldShape(t)

    // Act
    const stopped = await migrate(t, '--id', REPORT_KEYS, '--page-size', '5', '--max-pages', '1')
    const midway = (await lms('migrate', 'status', '--tenant', t.slug)).json.data.find(
      (m: { id: string }) => m.id === REPORT_KEYS,
    )
    const resumed = await migrate(t, '--page-size', '50')

    // Assess
    expect(stopped.more).toBe(true)
    expect(reportKeysRun(stopped)).toMatchObject({ outcome: 'stopped', pages: 1 })
    expect(midway).toMatchObject({ status: 'running', has_cursor: true, pages: 1, leased_until: null })
    expect(reportKeysRun(resumed)).toMatchObject({ outcome: 'done' })
    expect(resumed.more).toBe(false)
    expect(await reports(t)).toEqual(today)
    const total = (await lms('migrate', 'status', '--tenant', t.slug)).json.data.find(
      (m: { id: string }) => m.id === REPORT_KEYS,
    )
    expect(total).toMatchObject({
      status: 'done',
      changed: 14,
      pages: (reportKeysRun(resumed)?.pages ?? 0) + 1,
    })
  })

  it('refuses a second runner while one holds the lease, and runs once it is let go', async () => {
    // Prepare: a runner (this process) holds the lease.
    const t = await newTenant('growth')
    const scope = { migrationId: REPORT_KEYS, tenantId: t.tenant.id }
    const now = Date.now()
    const claim = await claimMigration({
      ...scope,
      owner: 'other-runner',
      now: new Date(now).toISOString(),
      nowMs: now,
      leaseUntil: now + 60_000,
    })
    expect('claimed' in claim).toBe(true)

    // Act
    const refused = await lms('migrate', 'run', '--tenant', t.slug, '--id', REPORT_KEYS)
    await releaseMigration(scope, 'other-runner')
    const after = await migrate(t, '--id', REPORT_KEYS)

    // Assess
    expect(refused.code).toBe(1)
    expect(refused.json.error.message).toMatch(/being run by another runner/)
    expect(reportKeysRun(after)).toMatchObject({ outcome: 'done' })
  })

  it('keeps to --max-rcu-per-second, waiting between pages for what each consumed', async () => {
    // Prepare
    const t = await newTenant('growth')
    const budget = 20

    // Act: the whole table is read (the filter keeps the tenant's items only), 25 items a page.
    const run = await migrate(
      t,
      '--id',
      '2026-11-tenant-id-copies',
      '--page-size',
      '25',
      '--max-rcu-per-second',
      `${budget}`,
    )

    // Assess: every page but the last is followed by its wait, so the run stays near the budget.
    const copies = run.migrations[0] as unknown as {
      pages: number
      consumed_rcu: number
      elapsed_ms: number
      throttled_ms: number
    }
    expect(copies.pages).toBeGreaterThan(1)
    expect(copies.throttled_ms).toBeGreaterThan(0)
    const lastPageAllowance = copies.consumed_rcu / copies.pages
    expect(copies.consumed_rcu - lastPageAllowance).toBeLessThanOrEqual((budget * copies.elapsed_ms) / 1000)
  })

  it('refuses an unknown migration id and a page size of 0 as usage errors', async () => {
    const t = await newTenant('growth')
    const unknown = await lms('migrate', 'run', '--tenant', t.slug, '--id', 'no-such-migration')
    const zero = await lms('migrate', 'run', '--tenant', t.slug, '--page-size', '0')
    expect(unknown.code).toBe(1)
    expect(unknown.json.error.message).toMatch(/No migration no-such-migration/)
    expect(zero).toMatchObject({ code: 1, json: { error: { code: 400 } } })
  })
})

describe('The migrations Lambda', () => {
  it('stops between pages when its time runs low, says more remains, and finishes on the next invocation', async () => {
    // Prepare
    const t = await history()
    const today = await reports(t)
    await toOldShape(t)
    let asked = 0
    // Plenty of time for the claim and the first page, then less than the two minutes it keeps.
    const runningOut = { getRemainingTimeInMillis: () => (asked++ < 2 ? 600_000 : 60_000) }
    const plenty = { getRemainingTimeInMillis: () => 600_000 }

    // Act
    const first = await migrationsLambda(
      { id: REPORT_KEYS, tenant_id: t.tenant.id, page_size: 5 },
      runningOut,
    )
    const second = await migrationsLambda({ tenant_id: t.tenant.id, page_size: 50 }, plenty)

    // Assess
    expect(first.more).toBe(true)
    expect(first.migrations[0]).toMatchObject({ id: REPORT_KEYS, outcome: 'stopped', pages: 1 })
    expect(second.more).toBe(false)
    expect(second.migrations.every((m) => m.outcome === 'done')).toBe(true)
    expect(await reports(t)).toEqual(today)
  })

  it('refuses an event it does not know', async () => {
    await expect(
      migrationsLambda({ table: 'all' }, { getRemainingTimeInMillis: () => 600_000 }),
    ).rejects.toThrow(/takes only id, tenant_id, page_size and max_pages/)
  })
})

describe('lms migrate: the items decision 0028 left behind', () => {
  it('makes a legacy tenant id pointer a copy, and sends a notification left in the old pending partition', async () => {
    // Prepare: the id item as tenants created before the copies have it.
    const t = await newTenant('growth')
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: `TENANTID#${t.tenant.id}`, sk: 'TENANT', slug: t.slug },
      }),
    )
    // A confirmation the stream never relayed (a relay outage across the upgrade), in the old
    // partition: written as another type first, since the stream relays an outbox item's INSERT.
    await enroll(t, (await user(t)).id, (await course(t)).id)
    const mailed = async () =>
      (await lms('mail', 'list', '--tenant', t.slug, '--template', 'enrollment_confirmation')).json.data
        .length
    await until(mailed, (n) => n === 1)
    const confirmation = (await tenantItems(t)).find((i) => i.type === 'notification')
    expect(confirmation).toBeDefined()
    const id = randomUUID()
    const createdAt = new Date(Date.now() - 10 * 60_000).toISOString()
    const Key = keys.outboxEvent(t.tenant, createdAt, id)
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...Key, type: 'staged' } }))
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key,
        UpdateExpression:
          'SET #type = :type, tenant_id = :tenant, created_at = :at, notification_id = :id, template = :template, user_id = :user, #data = :data, gsi1pk = :legacy, gsi1sk = :sk',
        ExpressionAttributeNames: { '#type': 'type', '#data': 'data' },
        ExpressionAttributeValues: {
          ':type': 'notification',
          ':tenant': t.tenant.id,
          ':at': createdAt,
          ':id': id,
          ':template': confirmation?.template,
          ':user': confirmation?.user_id,
          ':data': confirmation?.data,
          ':legacy': 'OUTBOX#PENDING#MAIL',
          ':sk': keys.sortKey(createdAt, id),
        },
      }),
    )

    // Act
    const run = await migrate(t)

    // Assess
    expect(run.migrations.find((m) => m.id === '2026-11-tenant-id-copies')).toMatchObject({ changed: 1 })
    expect(run.migrations.find((m) => m.id === '2026-11-pending-notifications')).toMatchObject({ changed: 1 })
    const copy = await storedItem({ pk: `TENANTID#${t.tenant.id}`, sk: 'TENANT' })
    expect(copy).toMatchObject({ type: 'tenant', id: t.tenant.id, slug: t.slug, plan: 'growth' })
    // The sweep relays it from the one pending index, and it is e-mailed.
    await until(mailed, (n) => n === 2)
    expect((await storedItem(Key)).relayed_at).toEqual(expect.any(String))
  })
})

describe('lms migrate: AGS links written before their enrollments said so (decision 0050, amendment)', () => {
  it('marks the enrollment of each link, and nothing else', async () => {
    // Prepare: a link as the launch wrote it before the mark, and an enrollment without one
    const t = await newTenant('growth')
    const c = await course(t)
    const linked = await enroll(t, (await user(t)).id, c.id)
    const plain = await enroll(t, (await user(t)).id, c.id)
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.ltiAgsLink(t.tenant, linked.id),
          type: 'lti_ags_link',
          enrollment_id: linked.id,
          registration_id: randomUUID(),
          sub: 'platform-user',
          lineitem: 'https://platform.example.com/lineitems/1',
          linked_at: new Date().toISOString(),
        },
      }),
    )

    // Act
    const run = await migrate(t)

    // Assess
    expect(run.migrations.find((m) => m.id === '2026-11-scores-linked')).toMatchObject({ changed: 1 })
    expect((await storedItem(keys.enrollment(t.tenant, linked.id))).scores_linked).toBe(true)
    expect((await storedItem(keys.enrollment(t.tenant, plain.id))).scores_linked).toBeUndefined()
  })
})
