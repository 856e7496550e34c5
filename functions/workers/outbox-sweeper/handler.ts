/**
 * The outbox sweeper: on a schedule (every minute in AWS, every few seconds locally). Before it
 * relays what the stream left behind it measures the outbox's lag (the oldest pending item's age,
 * an EMF metric the stack alarms on), so a sweep that then fails still reports it.
 */
import { countRelayedEvents, recordOutboxAge } from '../../../shared/metrics/app-metrics.ts'
import { oldestPendingAgeSeconds, sweep } from '../../../shared/services/outbox/relay-service.ts'

export const handler = async (): Promise<{ relayed: number }> => {
  const age = await oldestPendingAgeSeconds()
  // Written only while something is pending: the alarm reads no data as nothing waiting.
  if (age !== undefined) recordOutboxAge(age)
  const { relayed, failed } = await sweep()
  countRelayedEvents(relayed.flatMap((entry) => (entry.kind === 'event' ? [entry.event] : [])))
  // The others are handed on; the failure still fails the run, so the function's error alarm sees it.
  if (failed > 0) throw new Error(`${failed} of ${failed + relayed.length} outbox items not relayed`)
  return { relayed: relayed.length }
}
