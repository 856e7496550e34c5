import { describe, expect, it } from 'vitest'
import { concatAhead, readAhead } from '../../../shared/read-ahead.ts'

/** A source of `count` numbers from `start` that records how far it has been read. */
function counted(start: number, count: number, read: { n: number }) {
  return async function* () {
    for (let i = start; i < start + count; i++) {
      read.n += 1
      await Promise.resolve()
      yield i
    }
  }
}

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of source) out.push(x)
  return out
}

describe('Functions: read-ahead', () => {
  it('hands out every item of every source in order', async () => {
    const read = { n: 0 }
    const sources = [counted(0, 3, read), counted(3, 0, read), counted(3, 4, read), counted(7, 2, read)]
    expect(await all(concatAhead(sources, 3, 2))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(await all(readAhead(counted(0, 5, read)(), 2))).toEqual([0, 1, 2, 3, 4])
  })

  it('reads no more than width sources, each depth items, ahead of the consumer', async () => {
    const reads = [{ n: 0 }, { n: 0 }, { n: 0 }, { n: 0 }]
    const sources = reads.map((r, i) => counted(i * 100, 100, r))
    const it = concatAhead(sources, 2, 3)[Symbol.asyncIterator]()
    expect((await it.next()).value).toBe(0)
    await settle()
    // The first source: one handed out, up to three buffered (a fourth read waits for room).
    expect(reads[0]?.n).toBeLessThanOrEqual(5)
    expect(reads[1]?.n).toBeLessThanOrEqual(4)
    expect(reads[1]?.n).toBeGreaterThan(0)
    expect(reads[2]?.n).toBe(0)
    expect(reads[3]?.n).toBe(0)
    await it.return?.(undefined)
  })

  it('stops the readers when the consumer stops early', async () => {
    const read = { n: 0 }
    let taken = 0
    for await (const x of concatAhead([counted(0, 1000, read)], 1, 4)) {
      taken += 1
      if (x === 9) break
    }
    await settle()
    expect(taken).toBe(10)
    expect(read.n).toBeLessThanOrEqual(15)
  })

  it('passes a source failure on to the consumer after the items read before it', async () => {
    async function* failing() {
      yield 1
      throw new Error('read failed')
    }
    const out: number[] = []
    await expect(async () => {
      for await (const x of concatAhead([failing], 2, 2)) out.push(x)
    }).rejects.toThrow('read failed')
    expect(out).toEqual([1])
  })
})
