/**
 * The synthesized stack the local IAM check reads, made once for each version of the code that
 * shapes it and kept in the user's runtime directory (`<tmpdir>/lms-<uid>/`): synthesis takes
 * seconds (about 9 s here), a cache hit a few milliseconds. The version is the hash of every
 * source file the stack's code imports (esbuild's metafile lists them) and of the lockfile (the
 * CDK's version), so a change to a grant, a route or the table schema synthesizes again.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { runtimeDir } from '../stack-secrets.ts'
import type { SynthesizedStack } from './function-policies.ts'

const root = join(import.meta.dirname, '..', '..')
const entry = join(root, 'local', 'iam', 'synth-stack.ts')

/** The hash of the stack's sources (every file synth-stack.ts imports, outside node_modules) and the lockfile. */
export async function stackSourceHash(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
    absWorkingDir: root,
  })
  const hash = createHash('sha256')
  for (const file of [...Object.keys(result.metafile.inputs).sort(), 'package-lock.json']) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)))
      .update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

function synthesizeInto(file: string): Promise<void> {
  const pending = `${file}.${process.pid}`
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'local', 'iam', 'write-synthesized-stack.ts'), pending],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let errors = ''
    child.stderr.on('data', (c: Buffer) => (errors += c.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code === 0) {
        renameSync(pending, file)
        resolve()
      } else {
        rmSync(pending, { force: true })
        reject(new Error(`Synthesizing the stack for the local IAM check failed (exit ${code}):\n${errors}`))
      }
    })
  })
}

/** The synthesized stack of the code as it is now: from the cache, or synthesized (in a child) and cached. */
export async function synthesizedStack(): Promise<{
  stack: SynthesizedStack
  file: string
  cached: boolean
}> {
  const dir = runtimeDir(true) ?? ''
  const file = join(dir, `iam-stack-${await stackSourceHash()}.json`)
  const cached = existsSync(file)
  if (!cached) await synthesizeInto(file)
  return { stack: JSON.parse(readFileSync(file, 'utf8')) as SynthesizedStack, file, cached }
}
