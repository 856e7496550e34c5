/**
 * Export files in the exports bucket (private, encrypted, expired by a lifecycle rule): written as
 * a stream through a multipart upload, so the worker holds a few parts at most, never the file,
 * and read only through short-lived pre-signed GET URLs (export-download-url.ts signs them).
 */
import { Upload } from '@aws-sdk/lib-storage'
import { Transform, type Writable } from 'node:stream'
import { config } from '../../config.ts'
import { s3 } from '../../aws/s3.ts'

function bucket(): string {
  if (!config.exportsBucket) throw new Error('The exports bucket is not configured')
  return config.exportsBucket
}

/** S3's smallest part; two in flight: the memory a file costs the worker, whatever its size. */
const PART_BYTES = 5 * 1024 * 1024
const PARTS_IN_FLIGHT = 2

export interface WrittenFile<T> {
  readonly bytes: number
  /** What the writer returned (its row count). */
  readonly written: T
}

/**
 * Streams what `write` writes into the object `key`. The writer ends the stream itself; a writer
 * that throws aborts the upload (no object, no parts left behind).
 */
export async function uploadExportFile<T>(
  key: string,
  contentType: string,
  write: (out: Writable) => Promise<T>,
): Promise<WrittenFile<T>> {
  let bytes = 0
  // Counts what passes (a listener on the data would race the upload's own reading).
  const body = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      callback(null, chunk)
    },
  })
  const upload = new Upload({
    client: s3,
    params: { Bucket: bucket(), Key: key, Body: body, ContentType: contentType },
    partSize: PART_BYTES,
    queueSize: PARTS_IN_FLIGHT,
    leavePartsOnError: false,
  })
  const done = upload.done()
  // A failed upload ends the wait for the writer, which would wait for a drain that never comes.
  const uploadFailed = done.then(
    () => new Promise<never>(() => undefined),
    (err: unknown) => {
      throw err
    },
  )
  let written: T
  try {
    written = await Promise.race([write(body), uploadFailed])
  } catch (err) {
    body.destroy()
    await upload.abort().catch(() => undefined)
    await done.catch(() => undefined)
    throw err
  }
  await done
  return { bytes, written }
}
