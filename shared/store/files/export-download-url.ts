/**
 * The exports' download URLs: a pre-signed S3 GET of the file, by the SDK's presigner with the
 * product's S3 client (shared/aws/s3.ts), that saves it as `filename`.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { s3 } from '../../aws/s3.ts'
import { config } from '../../config.ts'

/** A GET URL that downloads the file as `filename`, valid `seconds`. */
export async function presignExportFile(key: string, filename: string, seconds: number): Promise<string> {
  if (!config.exportsBucket) throw new Error('The exports bucket is not configured')
  const get = new GetObjectCommand({
    Bucket: config.exportsBucket,
    Key: key,
    ResponseContentDisposition: `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`,
  })
  return getSignedUrl(s3, get, { expiresIn: seconds })
}
