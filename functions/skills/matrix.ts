/** GET /api/v1/skills/matrix: the team matrix (skills planning, Growth and up). */
import type * as v from 'valibot'
import { MatrixQuery } from '../../shared/domain/skills/matrix.ts'
import { parseOrThrow } from '../../shared/domain/validation.ts'
import { paging } from '../../shared/http/list-query.ts'
import { envelope } from '../../shared/http/responses.ts'
import { route } from '../../shared/http/route.ts'
import type { MatrixMetaSchema, MatrixRowSchema } from './representation.ts'
import { requireSkillsPlanning, teamMatrix } from '../../shared/services/skills/skills-matrix-service.ts'

export const matrixRoute = route('GET /api/v1/skills/matrix', async ({ tenant, query, keyId }) => {
  // The entitlement answers before any parameter is judged: a plan without it learns that first.
  requireSkillsPlanning(tenant)
  const q = parseOrThrow(MatrixQuery, query, 'query')
  const page = paging(query)
  const m = await teamMatrix(tenant, q, { offset: page.offset, limit: page.perPage }, `api:${keyId}`)
  const data = m.rows.map((r): v.InferOutput<typeof MatrixRowSchema> => ({
    id: r.user.id,
    user: { id: r.user.id, first_name: r.user.firstName, last_name: r.user.lastName },
    job_roles: r.jobRoles,
    cells: r.cells.map((c) => ({
      skill_id: c.skillId,
      status: c.status,
      required_level: c.requiredLevel,
      attained_level: c.attainedLevel,
      valid_until: c.validUntil,
      expiring: c.expiring,
      pending_claim_level: c.pendingClaimLevel,
    })),
  }))
  const meta: v.InferOutput<typeof MatrixMetaSchema> = {
    page: page.page,
    per_page: page.perPage,
    total: m.total,
    columns: m.columns.map((c) => ({
      skill_id: c.skillId,
      name: c.name,
      domain: c.domain,
      is_critical: c.isCritical,
    })),
    columns_truncated: m.columnsTruncated,
    available_columns: m.availableColumns,
    has_requirements: m.hasRequirements,
    population_truncated: m.populationTruncated,
  }
  return envelope(200, data, meta)
})
