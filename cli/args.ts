/** `--kebab-case value` flags; a flag given without a value reads as "true". */
export interface Parsed {
  readonly words: readonly string[]
  readonly flags: ReadonlyMap<string, string>
}

export function parseArgs(argv: readonly string[]): Parsed {
  const words: string[] = []
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? ''
    if (a.startsWith('--')) {
      const eq = a.indexOf('=')
      if (eq > 0) {
        flags.set(a.slice(2, eq), a.slice(eq + 1))
        continue
      }
      const next = argv[i + 1]
      if (next !== undefined && !next.startsWith('--')) {
        flags.set(a.slice(2), next)
        i++
      } else {
        flags.set(a.slice(2), 'true')
      }
    } else {
      words.push(a)
    }
  }
  return { words, flags }
}

/**
 * The words help was asked about, or undefined when it was not asked for. `--help` takes the word
 * after it as its value (`lms --help tenant` reads as `help=tenant`), so that word leads the topic.
 */
export function helpTopic(args: Parsed): readonly string[] | undefined {
  if (args.words[0] === 'help') return args.words.slice(1)
  const flag = args.flags.get('help')
  if (flag === undefined) return undefined
  return flag === 'true' ? args.words : [flag, ...args.words]
}

export class UsageError extends Error {}

/** A command that did part of its work: its own code (http-like) and what is left to do. */
export class CommandFailed extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'CommandFailed'
  }
}

export function required(flags: ReadonlyMap<string, string>, name: string): string {
  const v = flags.get(name)
  if (v === undefined || v === '' || v === 'true') throw new UsageError(`--${name} is required`)
  return v
}

export function onOff(flags: ReadonlyMap<string, string>, name: string): boolean | undefined {
  const v = flags.get(name)
  if (v === undefined) return undefined
  if (v === 'on' || v === 'true') return true
  if (v === 'off' || v === 'false') return false
  throw new UsageError(`--${name} takes on or off`)
}
