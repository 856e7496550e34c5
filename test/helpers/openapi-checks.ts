/**
 * The two checks an integrator's tools make of the OpenAPI document: Redocly's `recommended`
 * ruleset (run with the CLI installed by `npm ci`, offline) and openapi-typescript's generated
 * types (in memory), where no 2xx answer may type its `data` as `unknown`.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'

const run = promisify(execFile)

export interface LintTotals {
  readonly errors: number
  readonly warnings: number
  readonly problems: readonly { ruleId: string; severity: string; message: string }[]
}

export async function redoclyLint(document: unknown): Promise<LintTotals> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'))
  try {
    const file = join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(document))
    const cli = join(process.cwd(), 'node_modules', '.bin', 'redocly')
    // The CLI exits 1 when it finds errors; its JSON report is on stdout either way.
    const { stdout } = await run(cli, ['lint', '--extends', 'recommended', '--format', 'json', file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }))
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number }
      problems: LintTotals['problems']
    }
    return { ...report.totals, problems: report.problems }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The generated TypeScript, and each 2xx answer whose `data` it types as `unknown` (none expected). */
export async function generatedTypes(document: object): Promise<{ source: string; unknownData: string[] }> {
  const source = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]))
  const unknownData = source
    .split('\n')
    .map((line, i) => ({ line: line.trim(), i }))
    .filter(({ line }) => /^data\??: unknown;/.test(line))
    .map(({ i }) => `line ${i + 1}`)
  return { source, unknownData }
}
