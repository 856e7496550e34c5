/**
 * Powertools Metrics against our own EMF writer (docs/decisions/0029-metrics.md): three handlers
 * (bench/metrics-writers/: the baseline every Lambda already is, then the same plus one metric
 * through each writer) bundled exactly as the CDK bundles a function (lib/bundling.ts), their sizes
 * printed, and a cold-import command for each, to time side by side with farm-bench:
 *
 *   npx tsx bench/metrics-writers.ts /tmp/lms-metrics
 *   farm-bench -n 30 -- node /tmp/lms-metrics/import.mjs powertools --vs 'node /tmp/lms-metrics/import.mjs own-emf'
 *
 * `import.mjs NAME` imports that bundle and calls its handler once (the first metric line is part
 * of a cold start), with the environment of a Lambda at log level info, the handler's output thrown
 * away, and prints `NAME <wall ms> <cpu ms>` of that import and call as the process measured them:
 * the whole process (node's own start, about 100 ms) is too noisy a frame for a few milliseconds,
 * so quote these, collected with `sh -c 'exec node .../import.mjs NAME >>/tmp/FILE'` under farm-bench.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import { esbuildOptions } from '../lib/bundling.ts'
import { round } from './stats.ts'

const writers = ['baseline', 'own-emf', 'powertools'] as const

const importer = `
const name = process.argv[2]
process.env.LMS_LOG_LEVEL = 'info'
process.env.AWS_LAMBDA_FUNCTION_NAME = 'bench'
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = () => true
const cpu = process.cpuUsage()
const t = performance.now()
const { handler } = await import(new URL(\`./\${name}/index.mjs\`, import.meta.url).href)
await handler()
const ms = performance.now() - t
const used = process.cpuUsage(cpu)
process.stdout.write = write
console.log(name, ms.toFixed(2), ((used.user + used.system) / 1000).toFixed(2))
`

async function main(): Promise<void> {
  const outDir = resolve(process.argv[2] ?? '/tmp/lms-metrics')
  await mkdir(outDir, { recursive: true })
  const sizes: Record<string, number> = {}
  for (const name of writers) {
    const file = join(outDir, name, 'index.mjs')
    await build(esbuildOptions(resolve(import.meta.dirname, 'metrics-writers', `${name}.ts`), file))
    sizes[name] = (await stat(file)).size
  }
  await writeFile(join(outDir, 'import.mjs'), importer)
  const base = sizes.baseline ?? 0
  for (const name of writers) {
    const bytes = sizes[name] ?? 0
    process.stdout.write(
      `${name.padEnd(11)} ${String(bytes).padStart(8)} bytes  (+${round((bytes - base) / 1024, 1)} KiB over the baseline)\n`,
    )
  }
  process.stdout.write(`\ncold import: node ${join(outDir, 'import.mjs')} <${writers.join('|')}>\n`)
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
