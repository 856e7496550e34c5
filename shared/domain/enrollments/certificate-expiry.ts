/**
 * Certificate expiry notices (docs/decisions/0047): `certificate.expiring` 30 and 7 days before a
 * certificate expires and `certificate.expired` once it has. The daily job sends, per certificate,
 * the most urgent notice due at its run that was not sent yet, so a run that missed days sends
 * one notice (the current one), never a late 30-day notice after the 7-day one.
 */
import { EXPIRING_WINDOW_DAYS } from '../reports/compliance.ts'

const DAY_MS = 86_400_000

/** A notice by its days before expiry, most urgent last; 0 is the expiry itself. */
export type NoticeStage = typeof EXPIRING_WINDOW_DAYS | 7 | 0

/**
 * How far back a run still announces an expiry: a job down for longer does not announce older
 * ones (the compliance report still lists them as non-compliant).
 */
export const EXPIRED_LOOKBACK_DAYS = 30

export interface DueNotice {
  readonly stage: NoticeStage
  /** Whole days left at the run, rounded up (a run 29.5 days before says 30); 0 once expired. */
  readonly daysLeft: number
}

/**
 * The notice due at `at` for a certificate expiring at `expiresAt`: expired at or after the expiry
 * (an expiry exactly at `at` is expired, as in the compliance report), else the smallest stage
 * whose window it is in. Undefined before the 30-day window opens.
 */
export function noticeDue(expiresAt: string, at: string): DueNotice | undefined {
  const left = Date.parse(expiresAt) - Date.parse(at)
  if (left <= 0) return { stage: 0, daysLeft: 0 }
  const stage =
    left <= 7 * DAY_MS ? 7 : left <= EXPIRING_WINDOW_DAYS * DAY_MS ? EXPIRING_WINDOW_DAYS : undefined
  return stage === undefined ? undefined : { stage, daysLeft: Math.ceil(left / DAY_MS) }
}

/** The oldest expiry a run at `at` still announces. */
export const expiredLookbackStart = (at: string): string =>
  new Date(Date.parse(at) - EXPIRED_LOOKBACK_DAYS * DAY_MS).toISOString()
