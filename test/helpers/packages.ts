/** Module packages as the app uploads them (the operator CLI stands in for it). */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lms } from './cli.ts'

/** An empty ZIP archive padded with a comment to exactly `size` bytes. */
export function zipOf(size: number): Buffer {
  const eocd = Buffer.alloc(22)
  eocd.writeUInt32LE(0x06054b50, 0)
  eocd.writeUInt16LE(size - 22, 20)
  return Buffer.concat([eocd, Buffer.alloc(size - 22, 0x61)])
}

export async function uploadPackage(
  slug: string,
  target: { courseId: string; moduleId: string },
  size: number,
) {
  const file = join(await mkdtemp(join(tmpdir(), 'lms-package-')), 'package.zip')
  await writeFile(file, zipOf(size))
  const args = ['--tenant', slug, '--course', target.courseId, '--module', target.moduleId, '--file', file]
  return lms('course', 'upload-package', ...args)
}
