/** The yardstick of bench/metrics-writers.ts: what every Lambda already loads (config, the log line), no metric. */
import { log } from '../../shared/log.ts'

export const handler = async (): Promise<void> => {
  log('info', 'request', { route: 'GET /api/v1/users', status: 200 })
}
