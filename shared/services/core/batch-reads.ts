/**
 * Reads that the items of one batch share (a stream batch of the relay, an SQS batch of a worker):
 * each made once a batch, when an item first needs it, and dropped with the batch. The items of a
 * batch are handled together, so one read serves them all as freshly as one read each would;
 * nothing outlives the batch, so a change (an endpoint deleted) is seen by the next one.
 */
export function oncePerBatch<A, V>(keyOf: (arg: A) => string, read: (arg: A) => Promise<V>) {
  const reads = new Map<string, Promise<V>>()
  return (arg: A): Promise<V> => {
    const key = keyOf(arg)
    let pending = reads.get(key)
    if (!pending) {
      pending = read(arg)
      reads.set(key, pending)
      // A failed read is not kept: the next item (or the retried batch) reads again.
      pending.catch(() => reads.delete(key))
    }
    return pending
  }
}
