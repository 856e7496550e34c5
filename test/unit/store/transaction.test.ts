import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb'
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { putItem } from '../../../shared/store/core/db.ts'
import { commit, writeOrRefuse } from '../../../shared/store/core/transaction.ts'
import { isRefused, WriteRefused } from '../../../shared/store/core/store-errors.ts'
import { retryOnConflict } from '../../../shared/store/core/optimistic.ts'
import { inputsOf, mockDocuments } from '../../helpers/mock-documents.ts'

const ddb = mockDocuments()
const key = (sk: string) => ({ pk: 'T#1', sk })
const put = (sk: string) => ({ Put: { Item: key(sk), ConditionExpression: 'attribute_not_exists(pk)' } })

function cancelled(codes: string[]) {
  return new TransactionCanceledException({
    $metadata: {},
    message: 'cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
  })
}

beforeEach(() => ddb.reset())
afterAll(() => ddb.restore())

describe('Function: commit', () => {
  it('names the refusals of the steps whose conditions failed, in step order', async () => {
    // Prepare
    ddb
      .on(TransactWriteCommand)
      .rejects(cancelled(['None', 'ConditionalCheckFailed', 'ConditionalCheckFailed']))

    // Act
    const refused = await commit([
      { item: put('A'), refusal: 'stale' },
      { item: put('B'), refusal: 'email_taken' },
      { item: put('C'), refusal: 'seat_cap' },
    ]).catch((err: unknown) => err)

    // Assess
    expect(refused).toBeInstanceOf(WriteRefused)
    expect((refused as WriteRefused).refusals).toEqual(['email_taken', 'seat_cap'])
    expect((refused as WriteRefused).name).toBe('WriteRefused')
    expect((refused as WriteRefused).reason).toBe('refused')
    expect((refused as Error).message).toBe('Write refused: email_taken, seat_cap')
  })

  it('sends the items with the table name, in order', async () => {
    // Prepare
    ddb.on(TransactWriteCommand).resolves({})

    // Act
    await commit([{ item: put('A') }, { item: put('B') }])

    // Assess
    const sent = inputsOf(ddb, TransactWriteCommand)[0]?.TransactItems ?? []
    expect(sent.map((i) => i.Put?.Item?.sk)).toEqual(['A', 'B'])
    expect(sent.every((i) => typeof i.Put?.TableName === 'string')).toBe(true)
  })

  it('is read by name with isRefused', () => {
    // Prepare
    const refused: unknown = new WriteRefused(['email_taken'])

    // Act + Assess
    expect(isRefused<'email_taken' | 'seat_cap'>(refused, 'email_taken')).toBe(true)
    expect(isRefused<'email_taken' | 'seat_cap'>(refused, 'seat_cap')).toBe(false)
    expect(isRefused<'email_taken'>(new Error('email_taken'), 'email_taken')).toBe(false)
  })

  it('sends nothing for no steps', async () => {
    await commit([])
    expect(inputsOf(ddb, TransactWriteCommand)).toHaveLength(0)
  })
})

describe('Class: WriteRefused', () => {
  it('finds a refusal that is a record by its fields, whatever their order', () => {
    // Prepare
    const refused = new WriteRefused<{ row: number; kind: string } | 'course'>([
      { row: 1, kind: 'duplicate' },
      'course',
    ])

    // Assess
    expect(refused.has({ kind: 'duplicate', row: 1 })).toBe(true)
    expect(refused.has('course')).toBe(true)
    expect(refused.has({ row: 0, kind: 'duplicate' })).toBe(false)
    expect(refused.has({ row: 1, kind: 'user_inactive' })).toBe(false)
    expect(refused.message).toBe('Write refused: {"row":1,"kind":"duplicate"}, course')
  })
})

describe('Function: retryOnConflict', () => {
  it('runs again while the write is refused as stale, then returns', async () => {
    // Prepare
    let calls = 0

    // Act
    const out = await retryOnConflict(async () => {
      calls++
      if (calls < 3) throw new WriteRefused(['stale'])
      return 'done'
    })

    // Assess
    expect(out).toBe('done')
    expect(calls).toBe(3)
  })

  it('gives up after its tries with the last conflict, and never retries another error', async () => {
    // Prepare
    let calls = 0
    const stale = () => {
      calls++
      return Promise.reject(new WriteRefused(['stale']))
    }

    // Act + Assess
    await expect(retryOnConflict(stale, { tries: 2 })).rejects.toBeInstanceOf(WriteRefused)
    expect(calls).toBe(2)
    calls = 0
    await expect(
      retryOnConflict(() => {
        calls++
        return Promise.reject(new WriteRefused(['email_taken']))
      }),
    ).rejects.toThrow('email_taken')
    expect(calls).toBe(1)
  })

  it('caps the pause between tries at maxDelayMs, so many tries stay short', async () => {
    // Prepare: the longest pause every time; uncapped, the 11th would be 10 s
    vi.useFakeTimers()
    vi.spyOn(Math, 'random').mockReturnValue(0.999)
    let calls = 0
    const settled = vi.fn()

    // Act
    void retryOnConflict(
      () => (++calls < 12 ? Promise.reject(new WriteRefused(['stale'])) : Promise.resolve('done')),
      { tries: 12, maxDelayMs: 50 },
    ).then(settled)
    await vi.advanceTimersByTimeAsync(11 * 50)

    // Assess
    expect(settled).toHaveBeenCalledWith('done')
    expect(calls).toBe(12)
    vi.restoreAllMocks()
    vi.useRealTimers()
  })
})

describe('Function: writeOrRefuse', () => {
  it('names the refusal of a single write whose condition failed, and passes other errors through', async () => {
    // Prepare
    ddb
      .on(PutCommand)
      .rejectsOnce(
        new ConditionalCheckFailedException({ $metadata: {}, message: 'The conditional request failed' }),
      )
      .rejectsOnce(new Error('boom'))
      .resolves({})

    // Act
    const refused = await writeOrRefuse(putItem(put('A').Put), 'stale').catch((err: unknown) => err)
    const other = await writeOrRefuse(putItem(put('A').Put), 'stale').catch((err: unknown) => err)
    const written = await writeOrRefuse(putItem(put('A').Put), 'stale')

    // Assess
    expect(refused).toBeInstanceOf(WriteRefused)
    expect((refused as WriteRefused).refusals).toEqual(['stale'])
    expect((other as Error).message).toBe('boom')
    expect(written).toBeUndefined()
  })
})
