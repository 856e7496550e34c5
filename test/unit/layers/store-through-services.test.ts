/**
 * Handlers, the HTTP stack, the CLI and the local stack reach the table through services
 * (shared/services/), never the store itself: a rule about keys or items then has one home, and a
 * middleware cannot grow a read that no service owns. The few imports that must stay are listed
 * below, each with its reason; an entry that no longer matches an import fails too, so the list
 * only shrinks.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../../..')
const scanned = ['shared/http', 'cli', 'functions', 'local']
const store = 'shared/store/'

/** `importer -> store module` pairs that stay, and why. */
const allowed: Readonly<Record<string, string>> = {
  'shared/http/base-stack.ts -> shared/store/core/metrics.ts':
    'opens the per-request scope that every DynamoDB call records its cost into (no item, no key)',
  'shared/http/request-log.ts -> shared/store/core/metrics.ts':
    'reads that per-request cost for the request log line (no item, no key)',
  'cli/main.ts -> shared/store/core/table-schema.ts':
    'the local stack’s content bucket name, to point the CLI at it (a resource name, not data)',
  'cli/dlq-commands.ts -> shared/store/core/table-schema.ts':
    'the worker queues’ names, to find each dead-letter queue (resource names, not data)',
  'local/stores.ts -> shared/store/core/table-schema.ts':
    'infrastructure: creates the table, queues and buckets from the declared schema',
  'local/stores.ts -> shared/store/core/index-projections.ts':
    'infrastructure: the indexes’ projections when creating the table',
  'local/iam/local-iam-check.ts -> shared/store/core/table-schema.ts':
    'infrastructure: the local resource names the template’s references resolve to',
  'local/start.ts -> shared/store/core/table-schema.ts':
    'infrastructure: the bucket names it hands to the handlers’ environment',
  'local/stream-poller.ts -> shared/store/outbox/outbox-store.ts':
    'infrastructure: the local stand-in for the stream event source mapping keeps its position in the table',
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
}

/** Every static, re-exported and dynamic import of a file, as paths from the repository root. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => relative(root, resolve(root, dirname(file), name)))
}

const storeImports = scanned
  .flatMap(tsFiles)
  .flatMap((file) => importsOf(file).map((target) => `${file} -> ${target}`))
  .filter((pair) => pair.split(' -> ')[1]?.startsWith(store))

describe('imports of shared/store from handlers, the HTTP stack, the CLI and the local stack', () => {
  it('go through services, but for the listed exceptions', () => {
    // Assess
    expect(storeImports.filter((pair) => !(pair in allowed))).toEqual([])
  })

  it('list no exception that is no longer needed', () => {
    // Assess
    expect(Object.keys(allowed).filter((pair) => !storeImports.includes(pair))).toEqual([])
  })
})
