/**
 * What a function writes to stdout (its log lines, its EMF metric lines), captured for each test of
 * the file that calls this at its top level, and read back as JSON objects.
 */
import { afterEach, beforeEach, vi, type MockInstance } from 'vitest'

export interface CapturedStdout {
  /** Each write, as written. */
  readonly chunks: () => string[]
  /** The writes that are JSON objects, parsed. */
  readonly jsonLines: () => Record<string, unknown>[]
  /** Forgets what was written so far (what set-up wrote). */
  readonly clear: () => void
}

export function captureStdout(): CapturedStdout {
  let stdout: MockInstance<typeof process.stdout.write> | undefined
  beforeEach(() => {
    stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
  })
  afterEach(() => {
    stdout?.mockRestore()
  })
  const chunks = () => (stdout?.mock.calls ?? []).map(([chunk]) => String(chunk))
  return {
    chunks,
    jsonLines: () =>
      chunks()
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    clear: () => stdout?.mockClear(),
  }
}
