/**
 * bench/results.json: the figures of the last run, committed so that a change of cost shows in
 * review, as named figures in sections: `{ generatedAt, sections: { <section>: { <figure>: number
 * | boolean } } }`. Any bench script adds its own section with recordSection (see bench/README.md);
 * each figure is printed beside the committed run's (`git show HEAD:bench/results.json`).
 */
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { format, resolveConfig } from 'prettier'

export type Figure = number | boolean
export type Figures = Record<string, Figure>

interface ResultsFile {
  generatedAt: string
  sections: Record<string, Figures>
}

export const resultsPath = resolve(import.meta.dirname, 'results.json')
const repoPath = 'bench/results.json'

function parse(text: string): ResultsFile | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<ResultsFile>
    return parsed.sections && typeof parsed.sections === 'object'
      ? { generatedAt: String(parsed.generatedAt ?? ''), sections: parsed.sections }
      : undefined
  } catch {
    return undefined
  }
}

/** The committed run, or undefined when there is none (no git, no commit, another format). */
export async function committedResults(): Promise<ResultsFile | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['show', `HEAD:${repoPath}`], {
      cwd: resolve(import.meta.dirname, '..'),
      maxBuffer: 16 * 1024 * 1024,
    })
    return parse(stdout)
  } catch {
    return undefined
  }
}

async function save(results: ResultsFile): Promise<void> {
  const json = JSON.stringify(results)
  // Formatted as the repository formats JSON, so `prettier --check .` accepts the file.
  await writeFile(
    resultsPath,
    await format(json, { ...(await resolveConfig(resultsPath)), filepath: resultsPath }),
  )
}

/** Starts this run's file: the sections of an earlier run are dropped, not mixed in. */
export async function startResults(): Promise<void> {
  await save({ generatedAt: new Date().toISOString(), sections: {} })
}

/**
 * Writes `figures` as `section` of this run's file (replacing a section of that name) and returns
 * them printed beside the committed run's.
 */
export async function recordSection(section: string, figures: Figures): Promise<string> {
  const current = parse(await readFile(resultsPath, 'utf8').catch(() => '')) ?? {
    generatedAt: new Date().toISOString(),
    sections: {},
  }
  current.sections[section] = figures
  await save(current)
  return compare(section, figures, (await committedResults())?.sections[section])
}

function change(now: Figure, before: Figure | undefined): string {
  if (before === undefined) return 'new'
  if (typeof now !== 'number' || typeof before !== 'number') return now === before ? '=' : `was ${before}`
  if (now === before) return '='
  const pct =
    before === 0 ? '' : ` ${now > before ? '+' : ''}${Math.round(((now - before) / before) * 1000) / 10}%`
  return `was ${before}${pct}`
}

/** One line per figure: name, this run, the committed run; figures the committed run had and this one lacks too. */
export function compare(section: string, figures: Figures, committed: Figures | undefined): string {
  const width = Math.max(10, ...Object.keys({ ...figures, ...committed }).map((k) => k.length))
  const lines = [`[${section}]${committed ? '' : ' (no committed run of this section)'}`]
  for (const [name, value] of Object.entries(figures))
    lines.push(`  ${name.padEnd(width)}  ${String(value).padStart(10)}  ${change(value, committed?.[name])}`)
  for (const name of Object.keys(committed ?? {}))
    if (!(name in figures))
      lines.push(`  ${name.padEnd(width)}  ${'-'.padStart(10)}  gone (was ${committed?.[name]})`)
  return lines.join('\n')
}

/** Arrays under these names are detail (single calls, raw samples, which packages are largest). */
const DETAIL = new Set(['calls', 'coldImportMs', 'largest'])

/**
 * Named figures from a nested result: numbers and booleans, keyed by their path; array elements
 * by their name (`name`, `group`, `label`, `target`, else their index). Lists of single calls and
 * of raw samples are detail, not figures: left out.
 */
export function figuresOf(value: unknown, prefix = '', skip: ReadonlySet<string> = DETAIL): Figures {
  const out: Figures = {}
  const visit = (v: unknown, path: string) => {
    if (typeof v === 'number' || typeof v === 'boolean') out[path] = v
    else if (Array.isArray(v)) {
      v.forEach((item, i) => {
        if (typeof item !== 'object' || item === null) return
        const o = item as Record<string, unknown>
        const key = [o.name, o.group, o.label, o.target, o.op].find((k) => typeof k === 'string') ?? String(i)
        visit(item, path ? `${path}.${key as string}` : (key as string))
      })
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (skip.has(k) && Array.isArray(child)) continue
        visit(child, path ? `${path}.${k}` : k)
      }
    }
  }
  visit(value, prefix)
  return out
}
