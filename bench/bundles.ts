/**
 * Each route group's Lambda bundle, built with esbuild as lib/route-group-function.ts has
 * NodejsFunction build it (ESM, node24, minified, everything bundled, external source map, the
 * createRequire banner), then imported by fresh Node processes to time a cold module load.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import type { RouteGroup } from '../shared/routes.ts'
import { median, round } from './stats.ts'

export interface BundleResult {
  readonly group: RouteGroup
  readonly bytes: number
  readonly sourceMapBytes: number
  readonly coldImportMs: readonly number[]
  readonly coldImportMedianMs: number
}

const BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);"

async function bundle(group: RouteGroup, outDir: string): Promise<string> {
  const outfile = join(outDir, group, 'index.mjs')
  await build({
    entryPoints: [resolve(import.meta.dirname, '..', 'functions', group, 'handler.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: 'external',
    mainFields: ['module', 'main'],
    external: [],
    banner: { js: BANNER },
    logLevel: 'silent',
  })
  return outfile
}

/** One fresh process: the time its `await import(specifier)` took, as the process measured it. */
function coldImport(specifier: string, env: NodeJS.ProcessEnv): Promise<number> {
  const script = `const t=performance.now();await import(${JSON.stringify(specifier)});console.log(performance.now()-t)`
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      const ms = Number(out.trim().split('\n').pop())
      if (code === 0 && Number.isFinite(ms)) resolvePromise(ms)
      else reject(new Error(`cold import of ${specifier} failed (exit ${code}): ${err.trim()}`))
    })
  })
}

export async function measureBundles(
  groups: readonly RouteGroup[],
  dynamoEndpoint: string,
  runs: number,
): Promise<BundleResult[]> {
  const outDir = await mkdtemp(join(tmpdir(), 'lms-bench-'))
  // A clean environment, as a Lambda has: no tsx loader in NODE_OPTIONS, config able to load.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LMS_DYNAMODB_ENDPOINT: dynamoEndpoint,
    LMS_LOG_LEVEL: 'silent',
  }
  delete env.NODE_OPTIONS
  try {
    // One untimed start first, so the first group measured does not also pay for loading node itself.
    await coldImport('node:path', env)
    const results: BundleResult[] = []
    for (const group of groups) {
      const file = await bundle(group, outDir)
      const times: number[] = []
      for (let i = 0; i < runs; i++) times.push(await coldImport(pathToFileURL(file).href, env))
      results.push({
        group,
        bytes: (await stat(file)).size,
        sourceMapBytes: (await stat(`${file}.map`)).size,
        coldImportMs: times.map((t) => round(t, 1)),
        coldImportMedianMs: round(median(times), 1),
      })
    }
    return results
  } finally {
    await rm(outDir, { recursive: true, force: true })
  }
}
