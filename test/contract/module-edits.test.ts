/**
 * `PATCH|DELETE /courses/{id}/modules/{module_id}` and `PUT /courses/{id}/modules/order`
 * (api-additions section 4): text edits always; deletes and reorders refused while a published
 * course has enrollments; after a delete on a draft course, the module places and count and
 * every enrollment's progress follow the modules left.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { storageCapBytes } from '../../shared/domain/plans/entitlements.ts'
import { changePackageSize } from '../../shared/store/files/storage-store.ts'
import { modulePackageSize } from '../../shared/store/files/content-store.ts'
import { lms } from '../helpers/cli.ts'
import { uploadPackage } from '../helpers/packages.ts'
import { call, client } from '../helpers/http.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

const three = [
  { title: 'One', module_type: 'video' },
  { title: 'Two', module_type: 'document' },
  { title: 'Three', module_type: 'quiz' },
]

const put = (t: TestTenant, path: string, body: unknown, key = t.adminKey) =>
  call('PUT', path, { host: `${t.slug}.localhost`, key, body })

const modulesOf = async (t: TestTenant, courseId: string) => {
  const r = await t.api.get(`/api/v1/courses/${courseId}/modules`)
  expect(r.status).toBe(200)
  return r.body.data as { id: string; title: string; order_index: number; description: string | null }[]
}

const titles = async (t: TestTenant, courseId: string) => (await modulesOf(t, courseId)).map((m) => m.title)

describe('PATCH /api/v1/courses/{id}/modules/{module_id}', () => {
  it('changes title and description, even on a published course with enrollments', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })
    await enroll(t, (await user(t)).id, k.id)
    const [, second] = k.modules

    // Act
    const r = await t.api.patch(`/api/v1/courses/${k.id}/modules/${second!.id}`, {
      title: 'Two, revised',
      description: 'Read it twice',
    })
    const cleared = await t.api.patch(`/api/v1/courses/${k.id}/modules/${second!.id}`, { description: null })

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      id: second!.id,
      title: 'Two, revised',
      description: 'Read it twice',
      order_index: 1,
    })
    expect(cleared.status).toBe(200)
    expect((await modulesOf(t, k.id))[1]).toMatchObject({
      id: second!.id,
      title: 'Two, revised',
      description: null,
    })
  })

  it('refuses an empty body, an empty title or an unknown field (400 naming it), changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })
    const path = `/api/v1/courses/${k.id}/modules/${k.modules[0]!.id}`

    // Act
    const empty = await t.api.patch(path, {})
    const blank = await t.api.patch(path, { title: '  ' })
    const unknown = await t.api.patch(path, { title: 'New', module_type: 'video' })

    // Assess
    expect(empty.status).toBe(400)
    expect(blank.status).toBe(400)
    expect(blank.body.error.message).toMatch(/title/)
    expect(unknown.status).toBe(400)
    expect(unknown.body.error.message).toMatch(/module_type/)
    expect(await titles(t, k.id)).toEqual(['One', 'Two', 'Three'])
  })
})

describe('DELETE /api/v1/courses/{id}/modules/{module_id}', () => {
  it('is refused (409) on a published course with enrollments, changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })
    await enroll(t, (await user(t)).id, k.id)

    // Act
    const r = await t.api.delete(`/api/v1/courses/${k.id}/modules/${k.modules[1]!.id}`)

    // Assess
    expect(r.status).toBe(409)
    expect(r.body.error.message).toMatch(/enrollments/)
    expect(await modulesOf(t, k.id)).toEqual(
      k.modules.map((m, i) => expect.objectContaining({ id: m.id, order_index: i })),
    )
  })

  it('on a draft course closes the gap, keeps the count right and moves progress to the modules left', async () => {
    // Prepare: a learner completed the first of three modules (33%), then the course went back to draft.
    const t = await newTenant()
    const k = await course(t, { modules: three })
    const e = await enroll(t, (await user(t)).id, k.id)
    const [first, second, third] = k.modules
    await recordActivity(t.tenant, e.id, { moduleId: first!.id, kind: 'complete', score: 80 })
    await recordActivity(t.tenant, e.id, { moduleId: second!.id, kind: 'complete', score: 40 })
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.progress_percent).toBe(67)
    expect((await t.api.patch(`/api/v1/courses/${k.id}`, { status: 'draft' })).status).toBe(200)

    // Act
    const r = await t.api.delete(`/api/v1/courses/${k.id}/modules/${second!.id}`)

    // Assess
    expect(r.status).toBe(204)
    expect(await modulesOf(t, k.id)).toEqual([
      expect.objectContaining({ id: first!.id, order_index: 0 }),
      expect.objectContaining({ id: third!.id, order_index: 1 }),
    ])
    const enrollment = (await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data
    expect(enrollment).toMatchObject({ progress_percent: 50, score: 80 })
    const progress = (await t.api.get(`/api/v1/enrollments/${e.id}/progress`)).body.data
    expect(progress.overall_progress_percent).toBe(50)
    expect(progress.modules).toHaveLength(2)
    // The count is right: the next module goes to the place after the last.
    const added = await t.api.post(`/api/v1/courses/${k.id}/modules`, { title: 'Four', module_type: 'video' })
    expect(added.body.data.order_index).toBe(2)
    expect(await titles(t, k.id)).toEqual(['One', 'Three', 'Four'])
  })

  it('deletes the last and the only module of a course without enrollments', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three.slice(0, 2) })

    // Act
    const last = await t.api.delete(`/api/v1/courses/${k.id}/modules/${k.modules[1]!.id}`)
    const only = await t.api.delete(`/api/v1/courses/${k.id}/modules/${k.modules[0]!.id}`)
    const again = await t.api.delete(`/api/v1/courses/${k.id}/modules/${k.modules[0]!.id}`)

    // Assess
    expect([last.status, only.status, again.status]).toEqual([204, 204, 404])
    expect(await modulesOf(t, k.id)).toEqual([])
    const added = await t.api.post(`/api/v1/courses/${k.id}/modules`, {
      title: 'Fresh',
      module_type: 'video',
    })
    expect(added.body.data.order_index).toBe(0)
  })

  it("gives the deleted module's package room back under the storage cap and removes the package", async () => {
    // Prepare: 1,000 bytes of room on the starter plan's cap, 600 of them taken by the first module's package.
    const t = await newTenant()
    const k = await course(t, { modules: three.slice(0, 2) })
    const [first, second] = k.modules
    await changePackageSize(t.tenant, {
      moduleId: randomUUID(),
      before: undefined,
      after: (storageCapBytes('starter') ?? 0) - 1_000,
      capBytes: null,
      at: new Date().toISOString(),
    })
    const uploaded = await uploadPackage(t.slug, { courseId: k.id, moduleId: first!.id }, 600)
    expect(uploaded.code, uploaded.stdout).toBe(0)
    expect(await modulePackageSize(t.tenant, first!.id)).toBe(600)

    // Act
    const r = await t.api.delete(`/api/v1/courses/${k.id}/modules/${first!.id}`)

    // Assess: on the starter plan, 900 bytes fit only if the 600 came back.
    expect(r.status).toBe(204)
    expect(await modulePackageSize(t.tenant, first!.id)).toBeUndefined()
    expect((await lms('tenant', 'update', '--tenant', t.slug, '--plan', 'starter')).code).toBe(0)
    const fits = await uploadPackage(t.slug, { courseId: k.id, moduleId: second!.id }, 900)
    expect(fits.code, fits.stdout).toBe(0)
  })

  it('needs the admin scope: a write key gets 403 and nothing changes', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })
    const writer = client(t.slug, await t.key(['read', 'write']))

    // Act
    const r = await writer.delete(`/api/v1/courses/${k.id}/modules/${k.modules[0]!.id}`)

    // Assess
    expect(r.status).toBe(403)
    expect(await titles(t, k.id)).toEqual(['One', 'Two', 'Three'])
  })
})

describe('PUT /api/v1/courses/{id}/modules/order', () => {
  it('puts the modules in the order named', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three, publish: false })
    const [a, b, c] = k.modules

    // Act
    const r = await put(t, `/api/v1/courses/${k.id}/modules/order`, { module_ids: [c!.id, a!.id, b!.id] })

    // Assess
    expect(r.status).toBe(200)
    expect(r.body.data.map((m: { title: string; order_index: number }) => [m.title, m.order_index])).toEqual([
      ['Three', 0],
      ['One', 1],
      ['Two', 2],
    ])
    expect(await titles(t, k.id)).toEqual(['Three', 'One', 'Two'])
  })

  it.each([
    ['a module left out', (ids: string[]) => ids.slice(1)],
    ['a module twice', (ids: string[]) => [...ids, ids[0]!]],
    ['an id of no module of the course', (ids: string[]) => [...ids.slice(1), randomUUID()]],
    ['no module at all', () => []],
  ])('refuses %s (400 naming module_ids), changing nothing', async (_case, idsOf) => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })

    // Act
    const r = await put(t, `/api/v1/courses/${k.id}/modules/order`, {
      module_ids: idsOf(k.modules.map((m) => m.id)),
    })

    // Assess
    expect(r.status).toBe(400)
    expect(r.body.error.message).toMatch(/module_ids/)
    expect(await titles(t, k.id)).toEqual(['One', 'Two', 'Three'])
  })

  it('is refused (409) on a published course with enrollments, changing nothing', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, { modules: three })
    await enroll(t, (await user(t)).id, k.id)

    // Act
    const r = await put(t, `/api/v1/courses/${k.id}/modules/order`, {
      module_ids: k.modules.map((m) => m.id).reverse(),
    })

    // Assess
    expect(r.status).toBe(409)
    expect(await titles(t, k.id)).toEqual(['One', 'Two', 'Three'])
  })

  it('needs the write scope (a read key gets 403) and answers 404 for another tenant’s course', async () => {
    // Prepare
    const t = await newTenant()
    const other = await newTenant()
    const k = await course(t, { modules: three })
    const ids = k.modules.map((m) => m.id).reverse()
    const reader = await t.key(['read'])

    // Act
    const byReader = await put(t, `/api/v1/courses/${k.id}/modules/order`, { module_ids: ids }, reader)
    const elsewhere = await put(other, `/api/v1/courses/${k.id}/modules/order`, { module_ids: ids })
    const patchElsewhere = await other.api.patch(`/api/v1/courses/${k.id}/modules/${ids[0]}`, { title: 'X' })
    const deleteElsewhere = await other.api.delete(`/api/v1/courses/${k.id}/modules/${ids[0]}`)
    const patchByReader = await client(t.slug, reader).patch(`/api/v1/courses/${k.id}/modules/${ids[0]}`, {
      title: 'X',
    })

    // Assess
    expect(byReader.status).toBe(403)
    expect(elsewhere.status).toBe(404)
    expect(patchElsewhere.status).toBe(404)
    expect(deleteElsewhere.status).toBe(404)
    expect(patchByReader.status).toBe(403)
    expect(await titles(t, k.id)).toEqual(['One', 'Two', 'Three'])
  })
})
