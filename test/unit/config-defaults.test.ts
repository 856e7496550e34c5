/**
 * The spec's defaults when nothing overrides them. Tests shorten retry delays and timeouts, so the
 * configuration is read in a child process whose environment has no LMS_* variable at all.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

function configWithout(prefix: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith(prefix)))
  const script = "const { config } = await import('./shared/config.ts'); console.log(JSON.stringify(config))"
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('Module: config', () => {
  it('holds the spec defaults when no LMS_* variable is set', async () => {
    // Act
    const out = await configWithout('LMS_')

    // Assess
    expect(out.code, out.stderr).toBe(0)
    const config = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>
    expect(config).toMatchObject({
      webhookRetryDelays: [30, 60, 120, 240],
      xapiRetryDelays: [30, 60, 120, 240],
      webhookTimeoutMs: 10_000,
      xapiTimeoutMs: 10_000,
      tenantCacheMs: 5000,
      outboxSweepAfterMs: 60_000,
      allowLoopbackTargets: false,
    })
  })
})
