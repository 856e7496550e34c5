/** A GSI's projection (shared/store/core/index-projections.ts) as TableV2 takes it. */
import { ProjectionType } from 'aws-cdk-lib/aws-dynamodb'
import type { IndexProjection } from '../shared/store/core/index-projections.ts'

export function cdkProjection(p: IndexProjection): {
  projectionType: ProjectionType
  nonKeyAttributes?: string[]
} {
  if (p.type === 'INCLUDE')
    return { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...p.attributes] }
  return { projectionType: p.type === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY }
}
