/**
 * The stuck-exports job (`lms jobs run stuck-exports`, every 15 minutes): an export job whose
 * message reached the dead-letter queue while the job was claimed stays `processing` forever (and
 * one whose message was lost before any claim stays `queued`), its client polling a job that will
 * never end. Each job whose lease ran out more than an hour before
 * `at` (the export leases partition, one Query for every tenant) is failed with the fixed error,
 * by a write that holds only while the job is still queued or processing under that lease; no e-mail is sent
 * (the export_ready mail is for files). Running it twice for the same `at` fails nothing more: a
 * failed job has left the partition.
 */
import { EXPORT_FAILED_MESSAGE, stuckLeaseBefore } from '../../domain/reports/export-jobs.ts'
import { errorFields, log } from '../../log.ts'
import { expiredLeases, failStuckExport } from '../../store/files/export-leases.ts'

export async function runStuckExports(at: string): Promise<{ failed: number }> {
  let failed = 0
  for await (const page of expiredLeases(stuckLeaseBefore(at))) {
    for (const lease of page) {
      try {
        if (await failStuckExport(lease, { error: EXPORT_FAILED_MESSAGE, at })) {
          failed += 1
          log('info', 'stuck export job failed', { job: lease.key.sk, leaseUntil: lease.leaseUntil })
        }
      } catch (err) {
        // One job that cannot be failed now must not hold up the others: the next run takes it again.
        log('error', 'stuck export job not failed', { job: lease.key.sk, ...errorFields(err) })
      }
    }
  }
  return { failed }
}
