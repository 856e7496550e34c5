/**
 * A route group's bundle loads without undici (lib/node-http-without-undici.ts): under Node 24,
 * importing `node:http` as an ES module loads undici to build the module's ESM view, which cost
 * every route group 25-40 ms of CPU at each cold start (docs/decisions/0013, §4e). The users group
 * is bundled as the CDK bundles it and imported by a fresh Node process, which then lists the
 * undici modules it loaded.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { esbuildOptions } from '../../../lib/bundling.ts'

const outDir = await mkdtemp(join(tmpdir(), 'lms-bundle-'))
afterAll(() => rm(outDir, { recursive: true, force: true }))

const entry = resolve(import.meta.dirname, '..', '..', '..', 'functions', 'users', 'handler.ts')
const file = join(outDir, 'users', 'index.mjs')

/** The undici modules a fresh process has loaded once it imported `url`. */
function undiciLoadedBy(url: string): Promise<string[]> {
  const script =
    `await import(${JSON.stringify(url)});` +
    `console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))))`
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      // Nothing connects at import: an address that is never called is enough for config to load.
      env: {
        ...process.env,
        AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9',
        LMS_LOG_LEVEL: 'silent',
        NODE_OPTIONS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolvePromise(JSON.parse(out.trim().split('\n').pop() ?? '[]') as string[])
        : reject(new Error(`import failed (exit ${code}): ${err.trim()}`)),
    )
  })
}

describe('a route group bundle', () => {
  it('imports node:http without its ESM view, and loads no undici', async () => {
    // Prepare
    await build(esbuildOptions(entry, file))

    // Act
    const text = await readFile(file, 'utf8')
    const undici = await undiciLoadedBy(pathToFileURL(file).href)

    // Assess: Middy's util still reads STATUS_CODES, through the module's CommonJS face
    expect(text).not.toMatch(/from\s*"node:http"/)
    expect(text).toContain('getBuiltinModule("node:http")')
    expect(undici).toEqual([])
  })

  // The probe's control: without it, a Node that named its modules otherwise would pass the test above.
  it('sees undici loaded by a plain ESM import of node:http, what the alias avoids', async () => {
    expect(await undiciLoadedBy('node:http')).not.toEqual([])
  })
})
