import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One embedded stack (DynamoDB Local + emulator + gateway) for the whole run.
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/point-at-stack.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
