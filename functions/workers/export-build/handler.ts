/**
 * The export worker: builds each queued export job's file (one message per job) and streams it
 * into the exports bucket. A message whose job another delivery is building comes back later;
 * a job already completed or failed is left as it is (shared/services/files/export-jobs-service.ts).
 * Each file built is measured: how long it took and its rows (metrics ExportDuration, ExportRows).
 */
import { recordExport } from '../../../shared/metrics/app-metrics.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import { ExportMessage, runExport } from '../../../shared/services/files/export-jobs-service.ts'

export const handler = queueWorker({
  name: 'export',
  schema: ExportMessage,
  handle: async (message) => {
    const built = await runExport(message)
    if (built) recordExport(built, { jobId: message.job_id, format: built.format })
  },
})
