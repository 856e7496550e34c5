/** The outbox sweeper: on a schedule (every minute in AWS, every few seconds locally). */
import { sweep } from '../../../shared/services/outbox/relay-service.ts'

export const handler = async (): Promise<{ relayed: number }> => ({ relayed: await sweep() })
