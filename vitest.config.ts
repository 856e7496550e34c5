import { randomBytes } from 'node:crypto'
import { defineConfig } from 'vitest/config'
import { SummaryReporter } from './test/setup/summary-reporter.ts'

const unitTests = 'test/unit/**/*.test.ts'

export default defineConfig({
  test: {
    // Limits that only end a test that hangs: tests wait for events, and a busy 2-core machine
    // runs them several times slower than an idle one.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    reporters: ['default', new SummaryReporter()],
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        // Pure rules, parameter builders, HTTP helpers, fault injection with mocked clients:
        // no DynamoDB, no emulator, no Java. `npm run test:unit` runs only these.
        extends: true,
        test: {
          name: 'unit',
          include: [unitTests],
          // Read by shared/config.ts at import: quiet logs and a throwaway key for secret-box.
          env: { LMS_LOG_LEVEL: 'silent', LMS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
        },
      },
      {
        // Everything else talks to one embedded stack (DynamoDB Local + emulator + gateway)
        // booted once for the whole run.
        extends: true,
        test: {
          name: 'stack',
          include: ['test/**/*.test.ts'],
          exclude: [unitTests],
          globalSetup: ['test/setup/global-setup.ts'],
          setupFiles: ['test/setup/point-at-stack.ts'],
        },
      },
    ],
  },
})
