/**
 * Reading ahead of a consumer, in order and within a bound: `readAhead` pulls a source up to
 * `depth` items ahead of whoever drains it; `concatAhead` drains sources one after the other
 * while the next `width - 1` are already being read. Memory is at most width × depth items,
 * however long the sources are; a consumer that stops early stops the readers (they read at most
 * what they had room for).
 */

/** A source being read ahead into a buffer of at most `depth` items. */
class Ahead<T> {
  private readonly buffer: T[] = []
  private finished = false
  private failure: { readonly error: unknown } | undefined
  private stopped = false
  private wakeConsumer: (() => void) | undefined
  private wakeReader: (() => void) | undefined

  constructor(
    source: AsyncIterable<T>,
    private readonly depth: number,
  ) {
    void this.read(source)
  }

  private async read(source: AsyncIterable<T>): Promise<void> {
    try {
      for await (const item of source) {
        if (this.stopped) return
        this.buffer.push(item)
        this.wake()
        while (this.buffer.length >= this.depth && !this.stopped) {
          await new Promise<void>((resolve) => (this.wakeReader = resolve))
        }
        if (this.stopped) return
      }
    } catch (error) {
      this.failure = { error }
    } finally {
      this.finished = true
      this.wake()
    }
  }

  private wake(): void {
    const wake = this.wakeConsumer
    this.wakeConsumer = undefined
    wake?.()
  }

  private makeRoom(): void {
    const wake = this.wakeReader
    this.wakeReader = undefined
    wake?.()
  }

  async *drain(): AsyncGenerator<T> {
    try {
      for (;;) {
        if (this.buffer.length > 0) {
          const item = this.buffer.shift() as T
          this.makeRoom()
          yield item
        } else if (this.failure) throw this.failure.error
        else if (this.finished) return
        else await new Promise<void>((resolve) => (this.wakeConsumer = resolve))
      }
    } finally {
      this.stop()
    }
  }

  stop(): void {
    this.stopped = true
    this.buffer.length = 0
    this.makeRoom()
  }
}

/** The source's items in order, read up to `depth` ahead of the consumer. */
export function readAhead<T>(source: AsyncIterable<T>, depth: number): AsyncGenerator<T> {
  return new Ahead(source, depth).drain()
}

/**
 * Every item of every source, source after source; while one is drained, the next `width - 1`
 * sources are read (each up to `depth` items ahead). Sources start only when their turn nears.
 */
export async function* concatAhead<T>(
  sources: readonly (() => AsyncIterable<T>)[],
  width: number,
  depth: number,
): AsyncGenerator<T> {
  const started: Ahead<T>[] = []
  let next = 0
  const startUpTo = (count: number) => {
    while (next < sources.length && next < count) {
      const source = sources[next] as () => AsyncIterable<T>
      started.push(new Ahead(source(), depth))
      next += 1
    }
  }
  try {
    for (let i = 0; i < sources.length; i++) {
      startUpTo(i + Math.max(1, width))
      yield* (started[i] as Ahead<T>).drain()
    }
  } finally {
    for (const s of started) s.stop()
  }
}
