/**
 * Module packages as the app uploads them (the operator CLI stands in for it). Its own module, so
 * the route groups that never touch packages do not bundle the S3 client.
 */
import { NotFoundError, ValidationError } from '../../domain/errors.ts'
import { storageCapBytes, storageCapError } from '../../domain/plans/entitlements.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { putModulePackage } from '../../store/files/content-store.ts'
import { listModules } from '../../store/courses/courses-store.ts'
import { retryOnConflict } from '../../store/core/optimistic.ts'
import { changePackageSize, getPackageBytes } from '../../store/files/storage-store.ts'
import { isRefused } from '../../store/core/store-errors.ts'

/** The ZIP local-file or (empty archive) end-of-central-directory signature. */
const isZip = (b: Uint8Array) =>
  b.length >= 4 &&
  b[0] === 0x50 &&
  b[1] === 0x4b &&
  ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6))

/**
 * Takes the package's room under the plan's storage cap (the difference from the package it
 * replaces): the counter moves first, so the bytes are stored only once they fit.
 * @returns the size of the package it replaces (undefined for none)
 * @throws EntitlementError `storage_cap` when it does not fit
 */
async function reserveRoom(tenant: TenantContext, moduleId: string, bytes: number, at: string) {
  const capBytes = storageCapBytes(tenant.plan)
  try {
    return await retryOnConflict(async () => {
      const before = await getPackageBytes(tenant, moduleId)
      // A package larger than the whole cap never fits, even in an empty tenant (no counter yet).
      if (capBytes !== null && bytes - (before ?? 0) > capBytes) throw storageCapError(tenant.plan)
      await changePackageSize(tenant, { moduleId, before, after: bytes, capBytes, at })
      return before
    })
  } catch (err) {
    if (isRefused(err, 'storage_cap')) throw storageCapError(tenant.plan)
    throw err
  }
}

/** The app's package upload (the CLI stands in for it): a ZIP, stored as-is for the module. */
export async function uploadModulePackage(
  tenant: TenantContext,
  courseId: string,
  moduleId: string,
  bytes: Uint8Array,
  at = new Date().toISOString(),
): Promise<{ moduleId: string; bytes: number }> {
  if (!isZip(bytes)) throw new ValidationError('file', 'file: must be a ZIP archive')
  const module = (await listModules(tenant, courseId)).find((m) => m.id === moduleId)
  if (!module) throw new NotFoundError('module')
  const replaced = await reserveRoom(tenant, module.id, bytes.length, at)
  try {
    await putModulePackage(tenant, module.id, bytes, `${module.title}.zip`)
  } catch (err) {
    // The bytes were not stored: the room goes back (if this fails too, storage is over-counted, never under).
    await changePackageSize(tenant, {
      moduleId: module.id,
      before: bytes.length,
      after: replaced,
      capBytes: null,
      at,
    }).catch(() => undefined)
    throw err
  }
  return { moduleId: module.id, bytes: bytes.length }
}
