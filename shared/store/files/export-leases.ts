/**
 * The unfinished export jobs by lease (docs/decisions/0018, "A stuck export"): while a job is
 * `queued` or `processing` its item carries gsi1 keys under the product-wide partition
 * `EXPORT#LEASES`, sorted by `<lease_until>#<jobId>` (a queued job's lease is its creation, a
 * claimed one's its claim's); completing or failing the job removes them. So the jobs whose lease
 * ran out are one key range of one partition, whatever the number of tenants: the stuck-exports
 * job reads that range and fails each job found, by a conditional write that holds only while the
 * job is still queued or processing under the very lease it was found with.
 */
import * as v from 'valibot'
import { query, updateItem, conditionally, type Item } from '../core/db.ts'
import { decodeItem } from '../core/decode.ts'
import { cond, queryExpression, updateExpression } from '../core/expression.ts'
import { indexes, keys, type Key } from '../core/keys.ts'

const index = indexes.gsi1

/** The keys a claimed job carries (set with its claim). */
export function leaseIndexKeys(jobId: string, leaseUntil: string): Item {
  return { [index.pk]: keys.exportLeasesPk, [index.sk]: keys.sortKey(leaseUntil, jobId) }
}

/** Removed when the job completes or fails: it has no lease any more. */
export const leaseIndexAttributes: readonly string[] = [index.pk, index.sk]

/** Unfinished jobs whose lease ran out before `before`, soonest first. */
export function expiredLeasesParams(before: string) {
  return {
    IndexName: index.name,
    ...queryExpression({
      key: cond.and(cond.eq(index.pk, keys.exportLeasesPk), cond.lt(index.sk, before)),
      project: ['pk', 'sk', 'lease_until'],
    }),
  }
}

const LeaseEntry = v.object({ pk: v.string(), sk: v.string(), lease_until: v.string() })

export interface ExpiredLease {
  readonly key: Key
  readonly leaseUntil: string
}

/** Every job claimed under a lease that ran out before `before`, one page at a time. */
export async function* expiredLeases(before: string): AsyncGenerator<ExpiredLease[]> {
  let start: Record<string, unknown> | undefined
  do {
    const out = await query({
      ...expiredLeasesParams(before),
      ...(start ? { ExclusiveStartKey: start } : {}),
    })
    yield (out.Items ?? []).map((item: Item) => {
      const i = decodeItem('export lease', LeaseEntry, item)
      return { key: { pk: i.pk, sk: i.sk }, leaseUntil: i.lease_until }
    })
    start = out.LastEvaluatedKey
  } while (start)
}

/** Fails the job only if it is still unfinished under the lease it was found with (a claim moves it). */
export function failStuckExportParams(
  lease: ExpiredLease,
  failure: { readonly error: string; readonly at: string },
) {
  return {
    Key: lease.key,
    ...updateExpression(
      {
        set: { status: 'failed', error: failure.error, failed_at: failure.at },
        remove: ['lease_until', ...leaseIndexAttributes],
      },
      cond.and(
        cond.or(cond.eq('status', 'queued'), cond.eq('status', 'processing')),
        cond.eq('lease_until', lease.leaseUntil),
      ),
    ),
  }
}

/** @returns false when the job moved on since it was found (completed, failed or claimed anew) */
export function failStuckExport(
  lease: ExpiredLease,
  failure: { readonly error: string; readonly at: string },
): Promise<boolean> {
  return conditionally(updateItem(failStuckExportParams(lease, failure)))
}
