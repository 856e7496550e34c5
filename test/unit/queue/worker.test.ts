import { RequestThrottled, SendMessageCommand } from '@aws-sdk/client-sqs'
import { mockClient } from 'aws-sdk-client-mock'
import * as v from 'valibot'
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import { sqsEvent, sqsRecord } from '../../helpers/sqs-event.ts'
import { MalformedMessage, queueWorker, readMessage } from '../../../shared/queue/worker.ts'
import { sqs } from '../../../shared/aws/sqs.ts'
import { sendMessage } from '../../../shared/queue/sqs.ts'

const NEXT_QUEUE = 'https://sqs.eu-west-1.amazonaws.com/123456789012/lms-xapi'

// Log lines are what this wrapper promises: read them as a deployed worker writes them.
vi.mock('../../../shared/config.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../shared/config.ts')>()
  return { ...actual, config: { ...actual.config, logLevel: 'info' } }
})

const Message = v.object({
  tenantId: v.pipe(v.string(), v.nonEmpty()),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
})

const PERSONAL = 'ada.private@example.com'

const record = (messageId: string, body: string) => sqsRecord(body, { messageId, receiveCount: 2 })
const batch = sqsEvent

let stdout: MockInstance<typeof process.stdout.write>
beforeEach(() => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
})
afterEach(() => {
  stdout.mockRestore()
})

const logLines = () =>
  stdout.mock.calls.map(([chunk]) => JSON.parse(String(chunk)) as Record<string, unknown>)

describe('Function: readMessage', () => {
  it('returns the body as the schema reads it', () => {
    expect(readMessage('test', Message, '{"tenantId":"t1","attempt":2,"extra":true}')).toEqual({
      tenantId: 't1',
      attempt: 2,
    })
  })

  it('refuses a body that is not JSON without quoting it', () => {
    // Act
    const err = (() => {
      try {
        return readMessage('test', Message, `{"email":"${PERSONAL}"`)
      } catch (e) {
        return e
      }
    })()

    // Assess
    expect(err).toBeInstanceOf(MalformedMessage)
    expect((err as Error).name).toBe('MalformedMessage')
    expect((err as Error).message).toBe('The test message is not JSON')
  })

  it('names the attribute that does not match and the type expected, never the value', () => {
    // Act
    const err = (() => {
      try {
        return readMessage('test', Message, JSON.stringify({ tenantId: PERSONAL, attempt: 0 }))
      } catch (e) {
        return e
      }
    })()

    // Assess
    expect(err).toBeInstanceOf(MalformedMessage)
    expect((err as Error).message).toBe('The test message does not match its schema: attempt: expected >=1')
    expect((err as Error).message).not.toContain(PERSONAL)
  })
})

describe('Function: queueWorker', () => {
  it('hands each readable message to the handler and reports only the messages that failed', async () => {
    // Prepare
    const handled: unknown[] = []
    const worker = queueWorker({
      name: 'test',
      schema: Message,
      handle: async (msg) => {
        handled.push(msg)
        if (msg.attempt === 3) throw new TypeError('x is undefined')
      },
    })

    // Act
    const result = await worker(
      batch(
        record('ok', JSON.stringify({ tenantId: 't1', attempt: 1 })),
        record('throws', JSON.stringify({ tenantId: 't1', attempt: 3 })),
        record('not-json', `{"email":"${PERSONAL}"`),
        record('mismatch', JSON.stringify({ tenantId: PERSONAL })),
      ),
    )

    // Assess
    expect(handled).toEqual([
      { tenantId: 't1', attempt: 1 },
      { tenantId: 't1', attempt: 3 },
    ])
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
      ['mismatch', 'not-json', 'throws'].sort(),
    )
  })

  it('logs why each message failed by error name and message, with its id and receive count, never its body', async () => {
    // Prepare
    const worker = queueWorker({
      name: 'test',
      schema: Message,
      handle: () => Promise.reject(new TypeError('x is undefined')),
    })

    // Act
    await worker(
      batch(
        record('throws', JSON.stringify({ tenantId: PERSONAL, attempt: 1 })),
        record('mismatch', JSON.stringify({ tenantId: PERSONAL })),
      ),
    )

    // Assess
    const lines = logLines()
    expect(lines).toHaveLength(2)
    expect(lines).toEqual(
      expect.arrayContaining([
        {
          level: 'error',
          msg: 'test attempt failed',
          messageId: 'throws',
          receiveCount: 2,
          errorName: 'TypeError',
          errorMessage: 'x is undefined',
        },
        {
          level: 'error',
          msg: 'test attempt failed',
          messageId: 'mismatch',
          receiveCount: 2,
          errorName: 'MalformedMessage',
          errorMessage: 'The test message does not match its schema: attempt: missing',
        },
      ]),
    )
    expect(JSON.stringify(lines)).not.toContain(PERSONAL)
  })

  it('reports only the message whose follow-up SQS refused, with the request id, and keeps the others sent (partial batch failure)', async () => {
    // Prepare: each message queues its next attempt; SQS throttles the one for tenant t2
    const sqsMock = mockClient(sqs)
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm' })
    sqsMock.on(SendMessageCommand, { MessageBody: JSON.stringify({ tenantId: 't2', attempt: 2 }) }).rejects(
      new RequestThrottled({
        $metadata: { httpStatusCode: 400, requestId: 'req-42' },
        message: 'throttled',
      }),
    )
    const worker = queueWorker({
      name: 'test',
      schema: Message,
      handle: (msg) => sendMessage(NEXT_QUEUE, { ...msg, attempt: msg.attempt + 1 }, 30),
    })

    // Act
    let result
    try {
      result = await worker(
        batch(
          record('a', JSON.stringify({ tenantId: 't1', attempt: 1 })),
          record('b', JSON.stringify({ tenantId: 't2', attempt: 1 })),
          record('c', JSON.stringify({ tenantId: 't3', attempt: 1 })),
        ),
      )
    } finally {
      sqsMock.restore()
    }

    // Assess
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'b' }])
    expect(logLines()).toEqual([
      expect.objectContaining({ messageId: 'b', errorName: 'RequestThrottled', awsRequestId: 'req-42' }),
    ])
  })

  it('reports nothing for a batch that went through', async () => {
    const worker = queueWorker({ name: 'test', schema: Message, handle: () => Promise.resolve() })
    expect(await worker(batch(record('ok', '{"tenantId":"t1","attempt":1}')))).toEqual({
      batchItemFailures: [],
    })
    expect(logLines()).toEqual([])
  })
})
