/**
 * Fault injection for the dead-letter redrive (shared/queue/dead-letters.ts): a copy the source
 * queue refuses leaves its message in the dead-letter queue (never deleted, counted as not moved).
 * The emulator cannot refuse one entry of a batch on demand, so the SQS client is mocked here; the
 * whole path runs against the emulator in test/contract/dlq-cli.test.ts.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs'
import { mockClient } from 'aws-sdk-client-mock'
import { afterEach, describe, expect, it } from 'vitest'
import { redrive } from '../../../shared/queue/dead-letters.ts'

const sqs = mockClient(SQSClient)
afterEach(() => sqs.reset())

const source = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Lms-webhooks'
const dlq = 'https://sqs.eu-west-1.amazonaws.com/123456789012/Lms-webhooks-dlq'

describe('Function: redrive', () => {
  it('deletes from the dead-letter queue only the messages the source queue accepted', async () => {
    // Prepare
    sqs.on(GetQueueAttributesCommand).resolves({
      Attributes: {
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: 'arn:aws:sqs:eu-west-1:123456789012:Lms-webhooks-dlq',
          maxReceiveCount: 5,
        }),
      },
    })
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: dlq })
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          {
            Body: '{"a":1}',
            ReceiptHandle: 'r-a',
            MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } },
          },
          { Body: '{"b":2}', ReceiptHandle: 'r-b' },
        ],
      })
      .resolves({ Messages: [] })
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }],
      Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
    })
    sqs.on(DeleteMessageBatchCommand).resolves({ Successful: [{ Id: '0' }], Failed: [] })

    // Act
    const result = await redrive(source)

    // Assess
    expect(result).toEqual({ moved: 1, notMoved: 1 })
    expect(sqs.commandCalls(GetQueueUrlCommand)[0]?.args[0].input).toEqual({
      QueueName: 'Lms-webhooks-dlq',
      QueueOwnerAWSAccountId: '123456789012',
    })
    const sent = sqs.commandCalls(SendMessageBatchCommand)[0]?.args[0].input
    expect(sent?.QueueUrl).toBe(source)
    expect(sent?.Entries?.[0]).toMatchObject({
      MessageBody: '{"a":1}',
      MessageAttributes: { k: { StringValue: 'v' } },
    })
    const deleted = sqs.commandCalls(DeleteMessageBatchCommand).map((c) => c.args[0].input)
    expect(deleted).toEqual([{ QueueUrl: dlq, Entries: [{ Id: '0', ReceiptHandle: 'r-a' }] }])
  })

  it('refuses a queue with no dead-letter queue', async () => {
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: {} })

    await expect(redrive(source)).rejects.toThrow('has no dead-letter queue')
  })
})
