/**
 * What each Lambda's bundle leaves out (lib/bundling.ts): the SDK's modules that a Lambda never
 * loads, except where a function's own code imports one statically (the S3 client and its event
 * streams), which would otherwise fail at load. bench/bundles.ts checks the same against esbuild's
 * metafile of every bundle; this pins the rule on the entries the CDK hands over.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { externalsFor, functionOf, neverLoadedInLambda } from '../../../lib/bundling.ts'

const entry = (name: string) => join('/repo', 'functions', name, 'handler.ts')

describe('the function of a handler entry', () => {
  it('is the route group, or workers/<name> for a worker', () => {
    expect(functionOf(entry('users'))).toBe('users')
    expect(functionOf(entry('workers/export-build'))).toBe('workers/export-build')
    expect(functionOf('C:\\repo\\functions\\reports\\handler.ts')).toBe('reports')
  })
})

describe('the modules a bundle leaves out', () => {
  it('are all of neverLoadedInLambda for a group that does not reach them statically', () => {
    expect(externalsFor(entry('users'))).toEqual([...neverLoadedInLambda])
    expect(externalsFor(entry('webhooks'))).toEqual([...neverLoadedInLambda])
    expect(externalsFor(join('/repo', 'bench', 'bare-dynamodb-handler.ts'))).toEqual([...neverLoadedInLambda])
  })

  it('keep the event streams in the bundles that carry the S3 client (the export worker, the reports group that pre-signs)', () => {
    for (const fn of ['workers/export-build', 'reports'])
      expect(externalsFor(entry(fn))).toEqual(
        neverLoadedInLambda.filter((m) => m !== '@smithy/core/event-streams'),
      )
  })
})
