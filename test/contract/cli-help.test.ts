import { describe, expect, it } from 'vitest'
import { commandTable } from '../../cli/commands.ts'
import { lms } from '../helpers/cli.ts'

const names = [...commandTable.keys()]

/** The listing's lines that name a command: two spaces, the name, two or more spaces, its summary. */
const listedNames = (stdout: string) =>
  stdout
    .split('\n')
    .map((l) => /^ {2}(\S+(?: \S+)*?) {2,}\S/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)

/** The lines that parse as JSON (an error object would be one). */
const jsonLines = (stdout: string) =>
  stdout.split('\n').filter((l) => {
    try {
      JSON.parse(l)
      return true
    } catch {
      return false
    }
  })

describe('CLI: help', () => {
  it('lms --help lists every command of the command table once, with its summary, and exits 0', async () => {
    // Act
    const help = await lms('--help')

    // Assess
    expect(help.code).toBe(0)
    expect(help.json).toBeUndefined()
    expect(jsonLines(help.stdout)).toEqual([])
    const listed = listedNames(help.stdout)
    expect([...listed].sort()).toEqual([...names].sort())
    expect(new Set(listed).size).toBe(listed.length)
    for (const [name, command] of commandTable) {
      expect(command.summary, name).toMatch(/^[^\n]+$/)
      expect(help.stdout).toContain(`  ${name}`)
    }
  })

  it('lms help prints the same listing', async () => {
    // Act
    const [help, flag] = await Promise.all([lms('help'), lms('--help')])

    // Assess
    expect(help.code).toBe(0)
    expect(help.stdout).toBe(flag.stdout)
  })

  it('lms <command> --help and lms help <command> print that command’s flags and exit 0', async () => {
    // Act
    const [flag, word, three] = await Promise.all([
      lms('tenant', 'create', '--help'),
      lms('help', 'tenant', 'create'),
      lms('lti', 'deployment', 'add', '--help'),
    ])

    // Assess
    expect(flag.code).toBe(0)
    expect(flag.stdout).toContain('usage: lms tenant create --slug S --plan')
    expect(flag.stdout).toContain(commandTable.get('tenant create')?.summary)
    expect(word.stdout).toBe(flag.stdout)
    expect(three.code).toBe(0)
    expect(three.stdout).toContain('usage: lms lti deployment add --tenant S --registration ID')
  })

  it('lms <family> --help lists the commands of that family', async () => {
    // Act
    const dlq = await lms('dlq', '--help')

    // Assess
    expect(dlq.code).toBe(0)
    expect(dlq.stdout).toContain('lms dlq list')
    expect(dlq.stdout).toContain('lms dlq redrive --queue ')
    expect(dlq.stdout).not.toContain('tenant create')
  })

  it('help on a command that does not exist is a usage error', async () => {
    // Act
    const unknown = await lms('frobnicate', '--help')

    // Assess
    expect(unknown.code).toBe(1)
    expect(unknown.json.error.code).toBe(400)
  })
})
