import { describe, expect, it } from 'vitest'
import {
  isRelayed,
  relayBatches,
  resumeBefore,
  type StreamRecordLike,
} from '../../../local/stream-batches.ts'

const record = (seq: number, eventName: string, type: string): StreamRecordLike => ({
  eventName,
  dynamodb: { SequenceNumber: String(seq), NewImage: { type: { S: type } } },
})
const event = (seq: number) => record(seq, 'INSERT', 'event')
const noise = (seq: number) => record(seq, 'MODIFY', 'webhook_delivery')
const seqs = (rs: readonly StreamRecordLike[]) => rs.map((r) => r.dynamodb?.SequenceNumber)

describe('Function: isRelayed', () => {
  it('passes what the event source mapping’s filter passes: events and notifications inserted', () => {
    expect(isRelayed(event(1))).toBe(true)
    expect(isRelayed(record(2, 'INSERT', 'notification'))).toBe(true)
    expect(isRelayed(record(3, 'MODIFY', 'event'))).toBe(false)
    expect(isRelayed(record(4, 'INSERT', 'webhook_delivery'))).toBe(false)
    expect(isRelayed(record(5, 'REMOVE', 'notification'))).toBe(false)
    expect(isRelayed({ eventName: 'INSERT' })).toBe(false)
  })
})

describe('Function: relayBatches', () => {
  it('hands over only the relayed records, in stream order, and resumes after the whole page', () => {
    // Act
    const batches = relayBatches([noise(1), event(2), noise(3), event(4), noise(5)], 100)

    // Assert
    expect(batches).toHaveLength(1)
    expect(seqs(batches[0]?.records ?? [])).toEqual(['2', '4'])
    expect(batches[0]?.checkpoint).toBe('5')
  })

  it('splits the relayed records into batches of the mapping’s size, each resuming after its own last record', () => {
    // Prepare
    const page = [event(1), noise(2), event(3), event(4), noise(5), event(6), event(7), noise(8)]

    // Act
    const batches = relayBatches(page, 2)

    // Assert
    expect(batches.map((b) => seqs(b.records))).toEqual([['1', '3'], ['4', '6'], ['7']])
    expect(batches.map((b) => b.checkpoint)).toEqual(['3', '6', '8'])
  })

  it('gives nothing for a page without events or notifications (nothing to relay, no checkpoint to write)', () => {
    expect(relayBatches([noise(1), noise(2)], 100)).toEqual([])
    expect(relayBatches([], 100)).toEqual([])
  })
})

describe('Function: resumeBefore', () => {
  it('resumes just before the failed record, so it and all after it are read again', () => {
    const page = [event(1), noise(2), event(3), event(4)]
    expect(resumeBefore(page, '3')).toBe('2')
    expect(resumeBefore(page, '4')).toBe('3')
  })

  it('keeps the stored checkpoint when the failed record opens the page or is not on it', () => {
    expect(resumeBefore([event(1), event(2)], '1')).toBeUndefined()
    expect(resumeBefore([event(1), event(2)], '9')).toBeUndefined()
  })
})
