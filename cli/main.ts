/**
 * The operator CLI. Every command prints one JSON object and exits 0, or prints
 * `{"error": {"code", "message"}}` and exits non-zero; `lms --help`, `lms help [command]` and
 * `lms <command> --help` print usage text (cli/help.ts) and exit 0. It uses the same services as the handlers,
 * against the local stack's stores by default (same ports and environment as `npm start`).
 */
import { contentBucketName } from '../shared/store/core/table-schema.ts'
import { pointAtEmbeddedStores } from '../local/aws-environment.ts'
import { CommandFailed, helpTopic, parseArgs, UsageError } from './args.ts'

function pointAtLocalStack(): void {
  if (process.env.LMS_TARGET === 'aws') return
  const dynamoPort = process.env.LMS_DYNAMODB_PORT?.trim() || '8000'
  const emulatorPort = process.env.LMS_EMULATOR_PORT?.trim() || '4566'
  pointAtEmbeddedStores(
    process.env.AWS_ENDPOINT_URL_DYNAMODB?.trim() || `http://127.0.0.1:${dynamoPort}`,
    process.env.AWS_ENDPOINT_URL_SQS?.trim() || `http://127.0.0.1:${emulatorPort}`,
  )
  process.env.LMS_CONTENT_BUCKET ||= contentBucketName
  process.env.LMS_LOG_LEVEL ||= 'silent'
  process.env.LMS_WEBHOOKS_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-webhooks`
  process.env.LMS_XAPI_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-xapi`
  process.env.LMS_NOTIFICATIONS_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-notifications`
  process.env.LMS_EXPORTS_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-exports`
  process.env.LMS_REPLAYS_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-replays`
  process.env.LMS_AGS_QUEUE_URL ||= `http://127.0.0.1:${emulatorPort}/000000000000/lms-ags`
}

async function main(): Promise<number> {
  pointAtLocalStack()
  if (process.env.LMS_TARGET !== 'aws') {
    // The secrets of the stack whose DynamoDB this command talks to, so both can open what either
    // sealed, and a rotation here reaches the stack.
    const { cliSecretFiles, secretFilesEnv } = await import('../local/stack-secrets.ts')
    const dynamoPort = Number(new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '').port)
    const files = cliSecretFiles(dynamoPort, process.env.LMS_DATA_DIR?.trim() || '.lms-data')
    if (files) Object.assign(process.env, secretFilesEnv(files))
  }
  const { run } = await import('./commands.ts')
  const { toCliError } = await import('./cli-errors.ts')
  const args = parseArgs(process.argv.slice(2))
  const topic = helpTopic(args)
  try {
    if (topic !== undefined) {
      const { helpText } = await import('./help.ts')
      const text = helpText(topic)
      if (text === undefined)
        throw new UsageError(`Unknown command "${topic.join(' ')}" (lms --help lists them)`)
      process.stdout.write(text)
      return 0
    }
    const out = await run(args)
    process.stdout.write(`${JSON.stringify(out)}\n`)
    return 0
  } catch (err) {
    const error =
      err instanceof UsageError
        ? { code: 400, message: err.message }
        : err instanceof CommandFailed
          ? { code: err.code, message: err.message }
          : toCliError(err)
    process.stdout.write(`${JSON.stringify({ error })}\n`)
    return 1
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stdout.write(
      `${JSON.stringify({ error: { code: 500, message: err instanceof Error ? err.message : 'failed' } })}\n`,
    )
    process.exit(1)
  },
)
