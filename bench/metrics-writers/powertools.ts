/** The baseline plus the same metric through Powertools Metrics, as its documentation sets it up. */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics'
import { log } from '../../shared/log.ts'

const metrics = new Metrics({ namespace: 'lms/bench', serviceName: 'bench' })

export const handler = async (): Promise<void> => {
  log('info', 'request', { route: 'GET /api/v1/users', status: 200 })
  metrics.addDimensions({ Route: 'GET /api/v1/users', Status: '200' })
  metrics.addMetric('Requests', MetricUnit.Count, 1)
  metrics.publishStoredMetrics()
}
