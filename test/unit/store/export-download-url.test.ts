/**
 * The exports' download URL, signed without the S3 client (shared/store/export-download-url.ts),
 * is the URL the SDK's own presigner makes for the same object, expiry, credentials and time: in
 * AWS (virtual-hosted, the partition's domain) and on the emulator (path-style), with a key and a
 * file name that need escaping.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { describe, expect, it } from 'vitest'
import { presignExportFile, type ExportsBucket } from '../../../shared/store/export-download-url.ts'

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 'token/+=',
}
const signingDate = new Date('2026-11-23T10:00:00Z')
const key = 'exports/t-1/job 1 (final)*.xlsx'
const filename = 'Relevé des notes 2026.xlsx'

/** What the SDK makes: the S3 client's GetObject through @aws-sdk/s3-request-presigner. */
function sdkUrl(target: ExportsBucket, seconds: number): Promise<string> {
  const client = new S3Client({
    region: target.region,
    credentials,
    ...(target.endpoint ? { endpoint: target.endpoint, forcePathStyle: true } : {}),
  })
  return getSignedUrl(
    client,
    new GetObjectCommand({
      Bucket: target.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`,
    }),
    { expiresIn: seconds, signingDate },
  )
}

describe('Exports: the download URL', () => {
  const targets: Record<string, ExportsBucket> = {
    'AWS, eu-west-1': { bucket: 'lms-exports-a1b2c3', region: 'eu-west-1', credentials },
    'AWS, us-east-1': { bucket: 'lms-exports-a1b2c3', region: 'us-east-1', credentials },
    "AWS, China's partition": { bucket: 'lms-exports-a1b2c3', region: 'cn-north-1', credentials },
    'the emulator, path-style': {
      bucket: 'lms-exports',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4599',
      credentials,
    },
  }
  for (const [name, target] of Object.entries(targets)) {
    it(`is the SDK presigner's URL (${name})`, async () => {
      const ours = await presignExportFile(key, filename, 900, target, signingDate)

      expect(ours).toBe(await sdkUrl(target, 900))
      expect(new URL(ours).searchParams.get('X-Amz-Expires')).toBe('900')
    })
  }

  it('changes its signature with the object, the expiry and the credentials', async () => {
    const target = targets['AWS, eu-west-1'] as ExportsBucket
    const signature = (url: string) => new URL(url).searchParams.get('X-Amz-Signature')
    const base = signature(await presignExportFile(key, filename, 900, target, signingDate))

    const others = [
      await presignExportFile(`${key}.2`, filename, 900, target, signingDate),
      await presignExportFile(key, filename, 901, target, signingDate),
      await presignExportFile(
        key,
        filename,
        900,
        { ...target, credentials: { ...credentials, secretAccessKey: 'other' } },
        signingDate,
      ),
    ]

    expect(base).toMatch(/^[0-9a-f]{64}$/)
    for (const url of others) expect(signature(url)).not.toBe(base)
  })
})
