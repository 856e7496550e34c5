import { describe, expect, it } from 'vitest'
import { oncePerBatch } from '../../../shared/services/core/batch-reads.ts'

describe('oncePerBatch: reads the items of one batch share', () => {
  it('reads each key once, however many items of the batch ask, at once or later', async () => {
    // Prepare
    const reads: string[] = []
    const read = oncePerBatch(
      (id: string) => id,
      (id) => (reads.push(id), Promise.resolve(`endpoint ${id}`)),
    )

    // Act
    const first = await Promise.all([read('e1'), read('e1'), read('e2')])
    const later = await read('e1')

    // Assess
    expect(first).toEqual(['endpoint e1', 'endpoint e1', 'endpoint e2'])
    expect(later).toBe('endpoint e1')
    expect(reads).toEqual(['e1', 'e2'])
  })

  it('keeps nothing between batches: a new batch reads again', async () => {
    let n = 0
    const batch = () =>
      oncePerBatch(
        (id: string) => id,
        () => Promise.resolve(++n),
      )
    expect(await batch()('e1')).toBe(1)
    expect(await batch()('e1')).toBe(2)
  })

  it('does not keep a failed read: the next item reads again', async () => {
    // Prepare
    let calls = 0
    const read = oncePerBatch(
      (id: string) => id,
      () => (++calls === 1 ? Promise.reject(new Error('store unavailable')) : Promise.resolve('ok')),
    )

    // Act
    const failed = read('e1')

    // Assess
    await expect(failed).rejects.toThrow('store unavailable')
    expect(await read('e1')).toBe('ok')
    expect(calls).toBe(2)
  })
})
