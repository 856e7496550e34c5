/**
 * The outbox sweeper: on a schedule (every minute in AWS, every few seconds locally). Before it
 * relays what the stream left behind it measures the outbox's lag (the oldest pending event's age,
 * an EMF metric the stack alarms on), so a sweep that then fails still reports it.
 */
import { countRelayedEvents, recordOutboxAge } from '../../../shared/metrics/app-metrics.ts'
import { sweepNotifications } from '../../../shared/services/outbox/notification-relay.ts'
import { oldestPendingAgeSeconds, sweep } from '../../../shared/services/outbox/relay-service.ts'

export const handler = async (): Promise<{ relayed: number; notifications: number }> => {
  const age = await oldestPendingAgeSeconds()
  // Written only while something is pending: the alarm reads no data as nothing waiting.
  if (age !== undefined) recordOutboxAge(age)
  const relayed = await sweep()
  countRelayedEvents(relayed.map((p) => p.event))
  return { relayed: relayed.length, notifications: await sweepNotifications() }
}
