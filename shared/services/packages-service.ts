/**
 * Module packages as the app uploads them (the operator CLI stands in for it). Its own module, so
 * the route groups that never touch packages do not bundle the S3 client.
 */
import { NotFoundError, ValidationError } from '../domain/errors.ts'
import type { TenantContext } from '../domain/tenants/tenant.ts'
import { putModulePackage } from '../store/content-store.ts'
import { listModules } from '../store/courses-store.ts'

/** The ZIP local-file or (empty archive) end-of-central-directory signature. */
const isZip = (b: Uint8Array) =>
  b.length >= 4 &&
  b[0] === 0x50 &&
  b[1] === 0x4b &&
  ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6))

/** The app's package upload (the CLI stands in for it): a ZIP, stored as-is for the module. */
export async function uploadModulePackage(
  tenant: TenantContext,
  courseId: string,
  moduleId: string,
  bytes: Uint8Array,
): Promise<{ moduleId: string; bytes: number }> {
  if (!isZip(bytes)) throw new ValidationError('file', 'file: must be a ZIP archive')
  const module = (await listModules(tenant, courseId)).find((m) => m.id === moduleId)
  if (!module) throw new NotFoundError('module')
  await putModulePackage(tenant, module.id, bytes, `${module.title}.zip`)
  return { moduleId: module.id, bytes: bytes.length }
}
