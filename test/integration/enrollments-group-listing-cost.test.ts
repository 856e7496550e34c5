/**
 * Attack: GET /enrollments?group_id= over a large group made one Query per member, all in flight
 * at once (305 DynamoDB calls for 300 members). The listing runs in process against the test
 * stack's DynamoDB so its cost can be read: calls from the per-request metrics recorder, calls in
 * flight from a wrapper on the DynamoDB sender every store call goes through.
 */
import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Enrollment } from '../../shared/domain/enrollments/enrollment.ts'
import { bulkEnroll, listEnrollments } from '../../shared/services/enrollments/enrollments-service.ts'
import { addMembers, createGroup } from '../../shared/services/groups/groups-service.ts'
import { runWithDbMetrics } from '../../shared/store/core/metrics.ts'
import { seedUsers } from '../../shared/store/users/users-store.ts'
import { aUser } from '../helpers/builders.ts'
import { wrapDynamoDbCalls } from '../helpers/dynamodb-calls.ts'
import { course } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

/** Runs the listing, counting its DynamoDB calls and the most that were in flight at once. */
async function measured<T>(fn: () => Promise<T>) {
  let inFlight = 0
  let maxInFlight = 0
  const unwrap = wrapDynamoDbCalls((next) => async (operation, input) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      return await next(operation, input)
    } finally {
      inFlight -= 1
    }
  })
  try {
    const { metrics, done } = runWithDbMetrics(fn)
    const result = await done
    return { result, calls: metrics.calls.map((c) => c.op), maxInFlight }
  } finally {
    unwrap()
  }
}

let t: TestTenant
let bigGroup: string
let smallGroup: string
let enrolled: Enrollment[]

const newest = (list: Enrollment[]) =>
  [...list].sort((a, b) => `${b.enrolledAt}#${b.id}`.localeCompare(`${a.enrolledAt}#${a.id}`))

/**
 * 320 users: 300 in the big group, of whom 40 are enrolled in two courses (20 of those make the
 * small group), and 20 users outside both groups enrolled in the same two courses: 120 enrollments.
 */
beforeAll(async () => {
  t = await newTenant()
  // The bulk loader the benchmark uses (the tenant is new and empty): 320 users in a few calls.
  const at = new Date().toISOString()
  const users = Array.from({ length: 320 }, () => aUser({ createdAt: at }))
  await seedUsers(t.tenant, users)
  const members = users.slice(0, 300)
  const outsiders = users.slice(300)
  const enrolledMembers = members.slice(0, 40)
  bigGroup = (await createGroup(t.tenant, { name: `Everyone ${randomUUID()}`, description: null })).id
  smallGroup = (await createGroup(t.tenant, { name: `Team ${randomUUID()}`, description: null })).id
  expect(
    (
      await addMembers(
        t.tenant,
        bigGroup,
        members.map((u) => u.id),
      )
    ).added,
  ).toBe(300)
  expect(
    (
      await addMembers(
        t.tenant,
        smallGroup,
        enrolledMembers.slice(0, 20).map((u) => u.id),
      )
    ).added,
  ).toBe(20)
  const courses = [await course(t), await course(t)]
  const rows = [...enrolledMembers, ...outsiders].flatMap((u) =>
    courses.map((c) => ({ userId: u.id, courseId: c.id, dueDate: null })),
  )
  const results = await bulkEnroll(t.tenant, rows)
  enrolled = results.map((r) => {
    if (!('ok' in r)) throw new Error(`enrollment refused: ${r.error}`)
    return r.ok
  })
  expect(enrolled).toHaveLength(120)
}, 300_000)

const query = { sortBy: 'enrolled_at', order: 'desc', offset: 0, limit: 50 } as const

describe('Attack: GET /enrollments?group_id= over a large group', () => {
  it('answers a 300-member group with a handful of calls, never more than 8 in flight, results and total right', async () => {
    // Prepare
    const members = new Set(enrolled.slice(0, 80).map((e) => e.userId))
    const expected = newest(enrolled.filter((e) => members.has(e.userId)))

    // Act
    const first = await measured(() => listEnrollments(t.tenant, { ...query, groupId: bigGroup }))
    const second = await measured(() =>
      listEnrollments(t.tenant, { ...query, groupId: bigGroup, offset: 50 }),
    )

    // Assess
    expect(first.result.total).toBe(80)
    expect(first.result.items.map((e) => e.id)).toEqual(expected.slice(0, 50).map((e) => e.id))
    expect(second.result.total).toBe(80)
    expect(second.result.items.map((e) => e.id)).toEqual(expected.slice(50).map((e) => e.id))
    for (const run of [first, second]) {
      expect(run.maxInFlight).toBeLessThanOrEqual(8)
      // 4 today: the group, its member list, the counters and one page of the tenant-wide index.
      expect(run.calls.length).toBeLessThanOrEqual(5)
    }
  })

  it('queries a 20-member group member by member, at most 8 in flight, one Query each', async () => {
    // Prepare
    const members = new Set(enrolled.slice(0, 40).map((e) => e.userId))
    const expected = newest(enrolled.filter((e) => members.has(e.userId)))

    // Act
    const run = await measured(() => listEnrollments(t.tenant, { ...query, groupId: smallGroup }))

    // Assess
    expect(run.result.total).toBe(40)
    expect(run.result.items.map((e) => e.id)).toEqual(expected.map((e) => e.id))
    expect(run.maxInFlight).toBeLessThanOrEqual(8)
    // One Query for the member list, one per member; the group and the counters by key.
    expect(run.calls.filter((op) => op === 'Query')).toHaveLength(21)
    expect(run.calls.length).toBeLessThanOrEqual(24)
  })

  it('keeps filters and other sorts right on both paths: status, due_date ascending', async () => {
    // Act
    const big = await listEnrollments(t.tenant, {
      ...query,
      groupId: bigGroup,
      status: 'active',
      sortBy: 'due_date',
      order: 'asc',
    })
    const small = await listEnrollments(t.tenant, { ...query, groupId: smallGroup, status: 'dropped' })

    // Assess
    expect(big.total).toBe(80)
    expect(big.items).toHaveLength(50)
    expect(small).toEqual({ items: [], total: 0 })
  })
})
