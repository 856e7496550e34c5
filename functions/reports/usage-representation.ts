/** How GET /api/v1/usage reads; the type is inferred from the schema the OpenAPI document shows. */
import * as v from 'valibot'
import type { Usage } from '../../shared/services/billing/usage-service.ts'

const count = v.pipe(v.number(), v.integer(), v.minValue(0))

export const UsageSchema = v.object({
  period_start: v.pipe(v.string(), v.isoTimestamp()),
  period_end: v.pipe(v.string(), v.isoTimestamp()),
  requests: count,
  monthly_cap: v.nullable(count),
  remaining: v.nullable(count),
  key: v.object({
    id: v.string(),
    prefix: v.string(),
    minute: v.object({ limit: count, remaining: count, reset_seconds: count }),
  }),
})

export const toUsage = (u: Usage): v.InferOutput<typeof UsageSchema> => ({
  period_start: u.periodStart,
  period_end: u.periodEnd,
  requests: u.requests,
  monthly_cap: u.monthlyCap,
  remaining: u.remaining,
  key: {
    id: u.key.id,
    prefix: u.key.prefix,
    minute: {
      limit: u.key.minute.limit,
      remaining: u.key.minute.remaining,
      reset_seconds: u.key.minute.resetSeconds,
    },
  },
})
