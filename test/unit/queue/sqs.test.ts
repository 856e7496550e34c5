/**
 * SendMessage through the product's SQS client, with aws-sdk-client-mock in SQS's place: the body
 * is the message as JSON with its delay, a refusal keeps its name, and nothing is sent without a
 * queue URL.
 */
import { QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs'
import { mockClient } from 'aws-sdk-client-mock'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { sqs } from '../../../shared/aws/sqs.ts'
import { sendMessage } from '../../../shared/queue/sqs.ts'

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/lms-exports'

const sqsMock = mockClient(sqs)
beforeEach(() => {
  sqsMock.reset()
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'm-1' })
})
afterAll(() => sqsMock.restore())

describe('Queues: SendMessage', () => {
  it('sends the message as JSON to the queue, with its delay', async () => {
    await sendMessage(QUEUE_URL, { job_id: 'j-1', note: 'é' }, 5)
    expect(sqsMock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MessageBody: '{"job_id":"j-1","note":"é"}', DelaySeconds: 5 },
    ])
  })

  it('a refusal keeps its name', async () => {
    sqsMock.on(SendMessageCommand).rejects(new QueueDoesNotExist({ $metadata: {}, message: 'no such queue' }))
    await expect(sendMessage(QUEUE_URL, { a: 1 })).rejects.toMatchObject({ name: 'QueueDoesNotExist' })
  })

  it('sends nothing when the queue is not configured', async () => {
    await expect(sendMessage(undefined, { a: 1 })).rejects.toThrow('The queue URL is not configured')
    expect(sqsMock.commandCalls(SendMessageCommand)).toHaveLength(0)
  })
})
