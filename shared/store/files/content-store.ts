/**
 * Module packages in the content bucket: one object per module, written when the app uploads
 * the package and read only through short-lived pre-signed URLs (the bucket is never public).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { config } from '../../config.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { s3 } from '../../aws/s3.ts'

function bucket(): string {
  if (!config.contentBucket) throw new Error('The content bucket is not configured')
  return config.contentBucket
}

/** Tenant first, as every key in the product. */
const packageKey = (t: TenantContext, moduleId: string) => `tenants/${t.id}/modules/${moduleId}/package.zip`

export async function putModulePackage(
  tenant: TenantContext,
  moduleId: string,
  body: Uint8Array,
  filename: string,
): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket(),
      Key: packageKey(tenant, moduleId),
      Body: body,
      ContentType: 'application/zip',
      ContentDisposition: attachment(filename),
    }),
  )
}

/** Versioned bucket: the package stays recoverable as a noncurrent version for 30 days. */
export async function deleteModulePackage(tenant: TenantContext, moduleId: string): Promise<void> {
  await s3.send(new DeleteObjectCommand({ Bucket: bucket(), Key: packageKey(tenant, moduleId) }))
}

/** @returns the package's size in bytes, or undefined when none was uploaded. */
export async function modulePackageSize(
  tenant: TenantContext,
  moduleId: string,
): Promise<number | undefined> {
  try {
    const out = await s3.send(new HeadObjectCommand({ Bucket: bucket(), Key: packageKey(tenant, moduleId) }))
    return out.ContentLength ?? 0
  } catch (err) {
    if (err instanceof Error && (err.name === 'NotFound' || err.name === 'NoSuchKey')) return undefined
    throw err
  }
}

/** A GET URL that downloads the package as a file (never displayed inline), valid `seconds`. */
export function presignModulePackage(
  tenant: TenantContext,
  moduleId: string,
  filename: string,
  seconds: number,
): Promise<string> {
  return getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: bucket(),
      Key: packageKey(tenant, moduleId),
      ResponseContentDisposition: attachment(filename),
      ResponseContentType: 'application/zip',
    }),
    { expiresIn: seconds },
  )
}

/** RFC 6266: an ASCII fallback name and the exact UTF-8 name. */
function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
