/**
 * How every Lambda of the product is bundled: one description that the CDK construct
 * (route-group-function.ts, through NodejsFunction's options) and the benchmark (bench/bundles.ts,
 * through esbuild's API) both read, so what the bench measures is what is deployed.
 * ESM for node24, minified, everything bundled (the AWS SDK too, so its version is ours), an
 * external source map, and a `require` for the CommonJS dependencies that call it.
 */
import { fileURLToPath } from 'node:url'
import type { BuildOptions } from 'esbuild'

/**
 * Modules the AWS SDK reaches only through a dynamic `import()` on paths a Lambda never takes,
 * left out of the bundle (about 130 KB, a third of it): credential sources other than the
 * environment (a Lambda's credentials are always in its environment; the SDK tries the
 * environment first), and event streams (no operation the product calls streams). bench/bundles.ts
 * fails the run if one of them is ever imported statically, and a bundle that needed one at load
 * would fail the bench's cold import. A function run elsewhere than Lambda (SnapStart, a container
 * with a credentials endpoint) would need them back: see docs/decisions/0013-request-path-cost.md.
 */
export const neverLoadedInLambda: readonly string[] = [
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
  '@smithy/core/event-streams',
]

/**
 * Functions whose code imports one of those modules statically, so it must be in their bundle (a
 * Lambda would fail at load without it): the S3 client imports the event streams at load, for the
 * S3 operations that stream, and two functions carry it (the export worker uploads the files, the
 * reports group pre-signs their download URLs). bench/bundles.ts fails the run when this list
 * misses one.
 */
const bundledWhereImportedStatically: Readonly<Record<string, readonly string[]>> = {
  '@smithy/core/event-streams': ['workers/export-build', 'reports'],
}

/** The function of a handler's entry: `functions/<name>/handler.ts` is `<name>`, `functions/workers/<name>/...` `workers/<name>`. */
export function functionOf(entry: string): string {
  const path = entry.replaceAll('\\', '/')
  const at = path.lastIndexOf('/functions/')
  const rest = at >= 0 ? path.slice(at + '/functions/'.length) : path
  return rest.replace(/\/handler\.[cm]?[jt]s$/, '')
}

/** What a function's bundle leaves out: neverLoadedInLambda, but for what its code imports statically. */
export function externalsFor(entry: string): string[] {
  const fn = functionOf(entry)
  return neverLoadedInLambda.filter((m) => !(bundledWhereImportedStatically[m] ?? []).includes(fn))
}

/**
 * Modules swapped in every bundle: `node:http` for a copy without the ESM view that loads undici
 * at import (lib/node-http-without-undici.ts).
 */
export const bundleAliases: Readonly<Record<string, string>> = {
  'node:http': fileURLToPath(new URL('./node-http-without-undici.ts', import.meta.url)),
}

export const lambdaBundling = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  /** The default; each function's own list is externalsFor(entry). */
  external: neverLoadedInLambda,
  // Some dependencies are CommonJS and call require(): give the ESM bundle one.
  banner: "import { createRequire } from 'module';const require = createRequire(import.meta.url);",
} as const

/** The same bundle through esbuild's API (the bench): one entry to one file, map beside it. */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: lambdaBundling.format,
    target: lambdaBundling.target,
    minify: lambdaBundling.minify,
    sourcemap: lambdaBundling.sourcemap ? 'external' : false,
    mainFields: [...lambdaBundling.mainFields],
    external: externalsFor(entry),
    banner: { js: lambdaBundling.banner },
    alias: { ...bundleAliases },
    metafile: true,
    logLevel: 'silent',
  }
}
