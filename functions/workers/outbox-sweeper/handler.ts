/** The outbox sweeper: on a schedule (every minute in AWS, every few seconds locally). */
import { sweepNotifications } from '../../../shared/services/outbox/notification-relay.ts'
import { sweep } from '../../../shared/services/outbox/relay-service.ts'

export const handler = async (): Promise<{ relayed: number; notifications: number }> => ({
  relayed: await sweep(),
  notifications: await sweepNotifications(),
})
