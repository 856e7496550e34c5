/**
 * Whether a role's identity policy allows an action on a resource, as IAM decides it for the
 * statements CDK grants write: `Allow` statements with `Action` and `Resource` lists and their
 * wildcards. Anything else (Deny, NotAction, NotResource, a Condition) is refused when the
 * statements are read (statementsOf), so the check can never allow more than IAM would.
 *
 * Matching: an action is `service:Name`, compared without regard to case, `*` and `?` standing for
 * any characters and one character. A resource ARN is compared segment by segment (the five colons
 * before the resource part), case-sensitively, and a wildcard does not reach across a segment.
 */

/** An Allow statement, its values already resolved to plain strings. */
export interface AllowStatement {
  readonly actions: readonly string[]
  readonly resources: readonly string[]
}

const globCache = new Map<string, RegExp>()

function glob(pattern: string, flags: string): RegExp {
  const key = `${flags}:${pattern}`
  let re = globCache.get(key)
  if (!re) {
    const body = pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')))
      .join('')
    re = new RegExp(`^${body}$`, `s${flags}`)
    globCache.set(key, re)
  }
  return re
}

export const actionMatches = (pattern: string, action: string): boolean => glob(pattern, 'i').test(action)

/** `arn:partition:service:region:account:resource`: the resource part may hold colons itself. */
function arnSegments(arn: string): string[] {
  const parts = arn.split(':')
  return parts.length > 6 ? [...parts.slice(0, 5), parts.slice(5).join(':')] : parts
}

export function resourceMatches(pattern: string, resource: string): boolean {
  if (pattern === '*') return true
  const want = arnSegments(pattern)
  const got = arnSegments(resource)
  return want.length === got.length && want.every((p, i) => glob(p, '').test(got[i] ?? ''))
}

export function isAllowed(statements: readonly AllowStatement[], action: string, resource: string): boolean {
  return statements.some(
    (s) =>
      s.actions.some((a) => actionMatches(a, action)) &&
      s.resources.some((r) => resourceMatches(r, resource)),
  )
}

/** A policy statement as a template holds it (values may still be intrinsics). */
export interface TemplateStatement {
  readonly Effect?: unknown
  readonly Action?: unknown
  readonly Resource?: unknown
  readonly [other: string]: unknown
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v])

/**
 * The Allow statements of a policy document, each value passed through `resolve`.
 * @throws Error for a statement the evaluator cannot decide like IAM (Deny, NotAction, a Condition, ...)
 */
export function statementsOf(
  statements: readonly TemplateStatement[],
  resolve: (value: unknown) => string,
): AllowStatement[] {
  return statements.map((s) => {
    const unknown = Object.keys(s).filter((k) => !['Effect', 'Action', 'Resource', 'Sid'].includes(k))
    if (s.Effect !== 'Allow' || unknown.length > 0) {
      throw new Error(
        `The local IAM check evaluates Allow statements of Action and Resource only, not ${JSON.stringify(s)}`,
      )
    }
    return { actions: list(s.Action).map(resolve), resources: list(s.Resource).map(resolve) }
  })
}
