/**
 * The plans' storage caps where content is stored: a package upload that would take the tenant
 * over its plan's cap is refused with entitlement_blocked (storage_cap), and stores nothing.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { storageCapBytes } from '../../shared/domain/plans/entitlements.ts'
import { changePackageSize } from '../../shared/store/files/storage-store.ts'
import { lms } from '../helpers/cli.ts'
import { uploadPackage } from '../helpers/packages.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

/** A course and a module of the app's (the CLI stands in for it: a free plan has no API access). */
async function moduleOf(t: TestTenant) {
  const c = await lms('course', 'create', '--tenant', t.slug, '--title', `Course ${randomUUID().slice(0, 6)}`)
  expect(c.code, c.stdout).toBe(0)
  const args = ['--tenant', t.slug, '--course', c.json.id, '--title', 'Pack', '--module-type', 'scorm']
  const m = await lms('course', 'add-module', ...args)
  expect(m.code, m.stdout).toBe(0)
  return { courseId: c.json.id as string, moduleId: m.json.id as string }
}

const upload = (t: TestTenant, target: { courseId: string; moduleId: string }, size: number) =>
  uploadPackage(t.slug, target, size)

/** Content already stored: another module's package of `bytes` (written as an upload records it). */
async function occupy(t: TestTenant, bytes: number) {
  const at = new Date().toISOString()
  await changePackageSize(t.tenant, {
    moduleId: randomUUID(),
    before: undefined,
    after: bytes,
    capBytes: null,
    at,
  })
}

describe('Storage cap (free plan: 1,024 MB)', () => {
  it('refuses an upload that does not fit with entitlement_blocked storage_cap, and keeps the room it did not take', async () => {
    // Prepare: 100 bytes of room left
    const t = await newTenant('free')
    const cap = storageCapBytes('free')
    expect(cap).toBe(1024 * 1024 * 1024)
    await occupy(t, (cap ?? 0) - 100)
    const target = await moduleOf(t)

    // Act
    const refused = await upload(t, target, 101)

    // Assess
    expect(refused.code).not.toBe(0)
    expect(refused.json.error).toMatchObject({
      code: 422,
      entitlement_blocked: {
        code: 'ENTITLEMENT_BLOCKED',
        flag_or_limit: 'storage_cap',
        current_tier: 'free',
        required_tier: 'starter',
      },
    })
    // Nothing was taken: exactly the room left still fits.
    const fits = await upload(t, target, 100)
    expect(fits.code, fits.stdout).toBe(0)
    expect(fits.json).toEqual({ module_id: target.moduleId, bytes: 100 })
  })

  it('counts a replaced package by the difference only', async () => {
    const t = await newTenant('free')
    await occupy(t, (storageCapBytes('free') ?? 0) - 150)
    const target = await moduleOf(t)
    expect((await upload(t, target, 100)).code).toBe(0) // 50 bytes of room left

    // A replacement 50 bytes larger fits; one byte more than that does not.
    expect((await upload(t, target, 151)).json.error?.entitlement_blocked?.flag_or_limit).toBe('storage_cap')
    expect((await upload(t, target, 150)).code).toBe(0)
    // A smaller replacement frees room for another module's package.
    expect((await upload(t, target, 60)).code).toBe(0)
    expect((await upload(t, await moduleOf(t), 90)).code).toBe(0)
  })

  it('lets plans without a cap store past 1,024 MB', async () => {
    const t = await newTenant('growth')
    await occupy(t, 5 * 1024 * 1024 * 1024)
    const res = await upload(t, await moduleOf(t), 500)
    expect(res.code, res.stdout).toBe(0)
  })
})
