/**
 * Finds the Chromium or Chrome the LTI browser test drives, before the suite starts (issue 26,
 * point 10): CHROME_PATH, else the usual names on PATH and the usual install places. Where none is
 * found and the machine is Debian-like with the run as root, Debian's `chromium` is installed with
 * apt, as .ci/run would; otherwise the run stops at once naming the one command to run.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** What the search needs from the machine (a seam, so the unit test can describe any machine). */
export interface BrowserHost {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly platform: NodeJS.Platform
  readonly isRoot: boolean
  isExecutable(path: string): boolean
  /** Runs a command with its output shown; true when it exits 0. */
  run(command: string, args: readonly string[]): boolean
}

export const browserNames = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
]

/** Places a browser is installed outside PATH (snap, macOS application bundles). */
export const browserPlaces = [
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
]

/** The one command a newcomer runs when no browser is found. */
export function installCommand(platform: NodeJS.Platform): string {
  return platform === 'darwin' ? 'brew install --cask chromium' : 'sudo apt-get install -y chromium'
}

export class BrowserMissingError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BrowserMissingError'
  }
}

/** CHROME_PATH when it is set (executable or not: the caller says which), else the first found. */
export function findChromium(host: BrowserHost): string | undefined {
  const set = host.env.CHROME_PATH?.trim()
  if (set) return host.isExecutable(set) ? set : undefined
  const dirs = (host.env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const name of browserNames) {
    for (const dir of dirs) {
      const path = join(dir, name)
      if (host.isExecutable(path)) return path
    }
  }
  return browserPlaces.find((p) => host.isExecutable(p))
}

const onPath = (host: BrowserHost, name: string) =>
  (host.env.PATH ?? '').split(delimiter).some((dir) => dir && host.isExecutable(join(dir, name)))

/**
 * The browser's path, installing Debian's `chromium` first where that can be done here (root,
 * apt-get on PATH).
 * @throws BrowserMissingError naming the command to run (or the CHROME_PATH that is wrong)
 */
export function ensureChromium(host: BrowserHost): string {
  const found = findChromium(host)
  if (found) return found
  const set = host.env.CHROME_PATH?.trim()
  if (set) {
    throw new BrowserMissingError(
      `CHROME_PATH is ${set}, which is not an executable file: point it at a Chromium or Chrome binary, or unset it`,
    )
  }
  if (host.platform === 'linux' && host.isRoot && onPath(host, 'apt-get')) {
    process.stderr.write(
      "Chromium not found: installing Debian's chromium with apt-get for the LTI browser test\n",
    )
    const installed =
      host.run('apt-get', ['update', '-qq']) && host.run('apt-get', ['install', '-y', '-qq', 'chromium'])
    const after = installed ? findChromium(host) : undefined
    if (after) return after
  }
  throw new BrowserMissingError(
    `The LTI browser test needs Chromium or Chrome, and none was found (CHROME_PATH, ${browserNames.join(', ')} on PATH). ` +
      `Install it with: ${installCommand(host.platform)} (or set CHROME_PATH to a Chromium or Chrome binary)`,
  )
}

/** This machine. */
export function systemHost(): BrowserHost {
  return {
    env: process.env,
    platform: process.platform,
    isRoot: process.getuid?.() === 0,
    isExecutable(path) {
      try {
        accessSync(path, constants.X_OK)
        return statSync(path).isFile()
      } catch {
        return false
      }
    },
    run(command, args) {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
      return spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env }).status === 0
    },
  }
}
