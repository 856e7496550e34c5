/**
 * Issue 26, point 10: the test setup finds a Chromium or Chrome already there, installs Debian's
 * package itself where it can (root with apt), and otherwise stops at once naming the command.
 */
import { describe, expect, it } from 'vitest'
import { BrowserMissingError, ensureChromium, type BrowserHost } from '../../helpers/find-chromium.ts'

/** A machine with these executables; `apt-get install chromium` adds /usr/bin/chromium. */
function machine(options: {
  files?: string[]
  env?: Record<string, string>
  isRoot?: boolean
  platform?: NodeJS.Platform
  aptWorks?: boolean
}) {
  const files = new Set(options.files ?? [])
  const runs: string[] = []
  const host: BrowserHost = {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...options.env },
    platform: options.platform ?? 'linux',
    isRoot: options.isRoot ?? false,
    isExecutable: (path) => files.has(path),
    run(command, args) {
      runs.push([command, ...args].join(' '))
      if (options.aptWorks === false) return false
      if (args.includes('install')) files.add('/usr/bin/chromium')
      return true
    },
  }
  return { host, runs }
}

describe('Function: ensureChromium', () => {
  it('takes CHROME_PATH first', () => {
    const { host } = machine({
      files: ['/opt/chrome/chrome', '/usr/bin/chromium'],
      env: { CHROME_PATH: '/opt/chrome/chrome' },
    })
    expect(ensureChromium(host)).toBe('/opt/chrome/chrome')
  })

  it('finds the usual names on PATH, Debian’s chromium and Google Chrome alike', () => {
    expect(ensureChromium(machine({ files: ['/usr/bin/chromium'] }).host)).toBe('/usr/bin/chromium')
    expect(ensureChromium(machine({ files: ['/usr/local/bin/chromium-browser'] }).host)).toBe(
      '/usr/local/bin/chromium-browser',
    )
    expect(ensureChromium(machine({ files: ['/usr/bin/google-chrome'] }).host)).toBe('/usr/bin/google-chrome')
  })

  it('finds Chrome in its macOS application bundle', () => {
    const app = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'
    expect(ensureChromium(machine({ files: [app], platform: 'darwin' }).host)).toBe(app)
  })

  it('installs Debian’s chromium with apt-get when run as root, then uses it', () => {
    const { host, runs } = machine({ files: ['/usr/bin/apt-get'], isRoot: true })
    expect(ensureChromium(host)).toBe('/usr/bin/chromium')
    expect(runs).toEqual(['apt-get update -qq', 'apt-get install -y -qq chromium'])
  })

  it('stops at once naming the command to run when it cannot install (not root, or no apt)', () => {
    const notRoot = machine({ files: ['/usr/bin/apt-get'] })
    expect(() => ensureChromium(notRoot.host)).toThrow(BrowserMissingError)
    expect(() => ensureChromium(notRoot.host)).toThrow('sudo apt-get install -y chromium')
    expect(notRoot.runs).toEqual([])
    expect(() => ensureChromium(machine({ isRoot: true }).host)).toThrow('sudo apt-get install -y chromium')
    expect(() => ensureChromium(machine({ platform: 'darwin' }).host)).toThrow('brew install --cask chromium')
  })

  it('stops naming the command when the install fails', () => {
    const { host } = machine({ files: ['/usr/bin/apt-get'], isRoot: true, aptWorks: false })
    expect(() => ensureChromium(host)).toThrow('sudo apt-get install -y chromium')
  })

  it('says so when CHROME_PATH names no executable, rather than picking another browser', () => {
    const { host } = machine({ files: ['/usr/bin/chromium'], env: { CHROME_PATH: '/nowhere/chrome' } })
    expect(() => ensureChromium(host)).toThrow(/CHROME_PATH is \/nowhere\/chrome/)
  })
})
