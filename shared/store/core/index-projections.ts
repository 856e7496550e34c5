/**
 * What each global secondary index holds of an item (decision 0014): chosen per access pattern, in
 * one place, so the CDK stack and the local stack build the same indexes. DynamoDB rewrites an index
 * entry only when an attribute it holds changes, and bills that write by the entry's size.
 */
export type IndexProjection =
  | { readonly type: 'ALL' }
  | { readonly type: 'KEYS_ONLY' }
  | { readonly type: 'INCLUDE'; readonly attributes: readonly string[] }

const all: IndexProjection = { type: 'ALL' }

export const indexProjections: Readonly<Record<string, IndexProjection>> = {
  /** Where a deep users page starts: the table's keys and the position, nothing else (user-positions.ts). */
  pos1: { type: 'KEYS_ONLY' },
  /** User activity: everything the report reads is in the sort value `a1` (activity-index.ts, 0022). */
  act1: { type: 'KEYS_ONLY' },
  /** One user's activity entries, the same `a1` values (decision 0024). */
  act2: { type: 'KEYS_ONLY' },
  /**
   * A course's enrollments by creation time: read only for a performance period's partial days,
   * whose tally needs these four (course-day-tallies.ts). With ALL every enrollment write
   * (progress, activity) rewrote a ~2 KB entry; now only a status, completion or graded attempt does.
   */
  /** One course's completions and assignments: keys only, the page's items are read by key (0025). */
  rpt5: { type: 'KEYS_ONLY' },
  rpt6: { type: 'KEYS_ONLY' },
  /** The tenant's enrollments of one status: keys only, the page read by key (0025). */
  rpt7: { type: 'KEYS_ONLY' },
  rpt4: { type: 'INCLUDE', attributes: ['status', 'completed_at', 'enrolled_at', 'quiz_attempts'] },
}

export function projectionOf(indexName: string): IndexProjection {
  return indexProjections[indexName] ?? all
}

/** The projection as CreateTable / UpdateTable take it. */
export function dynamoProjection(p: IndexProjection): {
  ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'
  NonKeyAttributes?: string[]
} {
  return p.type === 'INCLUDE'
    ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...p.attributes] }
    : { ProjectionType: p.type }
}
