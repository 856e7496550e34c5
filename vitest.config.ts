import { defineConfig } from 'vitest/config'
import { SummaryReporter } from './test/setup/summary-reporter.ts'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One embedded stack (DynamoDB Local + emulator + gateway) for the whole run.
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/point-at-stack.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', new SummaryReporter()],
    pool: 'forks',
    maxWorkers: 2,
  },
})
