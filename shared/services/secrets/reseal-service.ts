/**
 * The re-seal job (`lms secret reseal`): moves every stored sealed value to the newest key of its
 * ring, so that older keys can one day leave the ring. Idempotent (a value under the newest key is
 * left alone, and each write is conditional on the value read) and resumable: it goes through the
 * tenant registry a page at a time, and each page ends with a cursor (the last tenant's id) that
 * the next run can start from.
 */
import { reseal, SealedValueError } from '../../crypto/secret-box.ts'
import {
  replaceSealedValue,
  sealedValuesOf,
  tenantsAfter,
  type SealedPurpose,
} from '../../store/secrets/sealed-values-store.ts'

/** A value the job could not open: where it is, why; never the value. */
export interface Unopenable {
  readonly tenantId: string
  readonly purpose: SealedPurpose
  readonly recordId: string
  readonly reason: string
}

export interface ResealPage {
  readonly tenants: number
  /** Values written under the newest key. */
  readonly resealed: number
  /** Values already under it (a second run finds only these). */
  readonly current: number
  /** Values changed by someone else between read and write: left as they are, already newer. */
  readonly changed: number
  readonly unopenable: readonly Unopenable[]
  /** Where the next page starts; null when every tenant has been gone through. */
  readonly cursor: string | null
}

/**
 * @param cursor the previous page's cursor, or undefined to start from the first tenant
 * @example let page = await resealPage(); while (page.cursor) page = await resealPage(page.cursor)
 */
export async function resealPage(cursor?: string, tenantsPerPage = 50): Promise<ResealPage> {
  const { tenantIds, more } = await tenantsAfter(cursor, tenantsPerPage)
  let resealed = 0
  let current = 0
  let changed = 0
  const unopenable: Unopenable[] = []
  for (const tenantId of tenantIds) {
    for (const stored of await sealedValuesOf(tenantId)) {
      const sealedFor = { purpose: stored.purpose, tenantId, recordId: stored.recordId }
      let next: string | null
      try {
        next = await reseal(stored.sealed, sealedFor)
      } catch (err) {
        if (!(err instanceof SealedValueError)) throw err
        unopenable.push({ tenantId, purpose: stored.purpose, recordId: stored.recordId, reason: err.message })
        continue
      }
      if (next === null) current++
      else if (await replaceSealedValue(stored, next)) resealed++
      else changed++
    }
  }
  const last = tenantIds.at(-1)
  return {
    tenants: tenantIds.length,
    resealed,
    current,
    changed,
    unopenable,
    cursor: more && last ? last : null,
  }
}
