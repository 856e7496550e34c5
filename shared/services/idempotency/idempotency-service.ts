/**
 * A keyed POST's Idempotency-Key, before its handler runs (decision 0038): one read answers a
 * replay, a reuse with another request (422) or a first request still running (409); a free key
 * is claimed with one conditional Put. The claim, not the read, decides between racing requests:
 * of ten sent at once with one key, one claims it and the others read what it left.
 */
import { randomUUID } from 'node:crypto'
import { IdempotencyInProgressError, RuleViolationError } from '../../domain/errors.ts'
import { findingOf, type KeptResponse } from '../../domain/idempotency.ts'
import type { TenantContext } from '../../domain/tenants/tenant.ts'
import { claimIdempotencyKey, readIdempotencyRecord } from '../../store/idempotency/idempotency-store.ts'

export {
  completeIdempotencyKey as keepAnswer,
  releaseIdempotencyKey as releaseKey,
} from '../../store/idempotency/idempotency-store.ts'

export type Start =
  | { readonly kind: 'replay'; readonly response: KeptResponse }
  | { readonly kind: 'claimed'; readonly token: string }

/** @throws RuleViolationError (422) for a key used with another request, IdempotencyInProgressError (409) */
export async function startIdempotent(tenant: TenantContext, key: string, hash: string): Promise<Start> {
  const first = findingOf(await readIdempotencyRecord(tenant, key), hash, Date.now())
  if (first.kind === 'absent') {
    const token = randomUUID()
    if (await claimIdempotencyKey(tenant, key, hash, token)) return { kind: 'claimed', token }
  }
  // Lost the race for the claim: what the winner left decides (a replay once it finished).
  const finding =
    first.kind === 'absent' ? findingOf(await readIdempotencyRecord(tenant, key), hash, Date.now()) : first
  if (finding.kind === 'replay') return finding
  if (finding.kind === 'mismatch')
    throw new RuleViolationError(
      'idempotency.key_reused',
      'Idempotency-Key was already used with another method, path or body',
    )
  throw new IdempotencyInProgressError()
}
