/** The baseline plus one metric through our own EMF writer (shared/metrics/emf.ts). */
import { log } from '../../shared/log.ts'
import { putMetrics } from '../../shared/metrics/emf.ts'

export const handler = async (): Promise<void> => {
  log('info', 'request', { route: 'GET /api/v1/users', status: 200 })
  putMetrics({
    dimensions: { Route: 'GET /api/v1/users', Status: '200' },
    metrics: [{ name: 'Requests', unit: 'Count', value: 1 }],
  })
}
