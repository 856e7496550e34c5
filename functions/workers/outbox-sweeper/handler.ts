/**
 * The outbox sweeper: on a schedule (every minute in AWS, every few seconds locally). It relays
 * what the stream left behind and reports the outbox's lag from the same read (the oldest pending
 * item's wait, an EMF metric the stack alarms on), whether or not its relaying then fails.
 */
import { countRelayedEvents, recordOutboxAge } from '../../../shared/metrics/app-metrics.ts'
import { sweep } from '../../../shared/services/outbox/relay-service.ts'

export const handler = async (): Promise<{ relayed: number }> => {
  const { lagSeconds, relayed, failed } = await sweep()
  // Written only while something waited past the sweep age: the alarm reads no data as nothing waiting.
  if (lagSeconds !== undefined) recordOutboxAge(lagSeconds)
  countRelayedEvents(relayed.flatMap((entry) => (entry.kind === 'event' ? [entry.event] : [])))
  // The others are handed on; the failure still fails the run, so the function's error alarm sees it.
  if (failed > 0) throw new Error(`${failed} of ${failed + relayed.length} outbox items not relayed`)
  return { relayed: relayed.length }
}
