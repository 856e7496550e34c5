/**
 * `lms --help`, `lms help [words]` and `lms <command> --help`: usage text, read from the command
 * table (cli/commands.ts), so a command is listed once and as it is run.
 */
import { commandTable, findCommand } from './commands.ts'

const line = (name: string, text: string, width: number) => `  ${name.padEnd(width)}  ${text}`

/** The usage text of a topic: every command, one command, or the commands under a prefix (`lti key`). */
export function helpText(topic: readonly string[]): string | undefined {
  const found = findCommand(topic)
  if (found) {
    const { name, command } = found
    return [`usage: lms ${name}${command.usage ? ` ${command.usage}` : ''}`, '', command.summary, ''].join(
      '\n',
    )
  }
  const prefix = topic.join(' ')
  const names = [...commandTable.keys()].filter((n) => !prefix || n.startsWith(`${prefix} `)).sort()
  if (names.length === 0) return undefined
  if (prefix) {
    // Each command under the prefix with its flags, its summary under it.
    const block = (n: string) => {
      const command = commandTable.get(n)
      return `lms ${n} ${command?.usage ?? ''}`.trimEnd() + `\n    ${command?.summary ?? ''}\n`
    }
    return names.map(block).join('')
  }
  const width = Math.max(...names.map((n) => n.length))
  const listing = names.map((n) => line(n, commandTable.get(n)?.summary ?? '', width))
  return [
    'usage: lms <command> [--flag value ...]',
    '',
    'The operator CLI. Each command prints one JSON object and exits 0; on failure it prints',
    'an error object ({"error": {"code", "message"}}) and exits 1. It talks to the local stack',
    'by default; LMS_TARGET=aws talks to the AWS stack named by the environment',
    '(docs/operations.md).',
    '',
    'Commands:',
    ...listing,
    '',
    '`lms <command> --help` shows its flags.',
    '',
  ].join('\n')
}
