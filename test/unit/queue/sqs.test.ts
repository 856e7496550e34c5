/**
 * SendMessage without the SQS client (shared/queue/sqs.ts) against a local server: the request is
 * the one @aws-sdk/client-sqs sends (operation, body, signed headers), its SigV4 signature
 * verifies for sqs in the region, the answer's MD5 is checked, and refusals and retries behave as
 * the client's did.
 */
import { createHash } from 'node:crypto'
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { queueObservers, sendMessage, type QueueService } from '../../../shared/queue/sqs.ts'
import { startFakeAws } from '../../helpers/fake-aws.ts'
import { verifies, type Received } from '../../helpers/sigv4.ts'

const REGION = 'eu-west-1'
const QUEUE_URL = `https://sqs.${REGION}.amazonaws.com/123456789012/lms-exports`
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
  sessionToken: 't-1',
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex')

const fake = await startFakeAws('application/x-amz-json-1.0', (r) => ({
  status: 200,
  body: {
    MessageId: 'm-1',
    MD5OfMessageBody: md5((JSON.parse(r.body || '{}') as { MessageBody?: string }).MessageBody ?? ''),
  },
}))
afterAll(() => fake.close())
beforeEach(() => fake.reset())
const received = fake.received

const service = (): QueueService => ({
  endpoint: fake.endpoint,
  region: REGION,
  credentials: async () => credentials,
})

describe('SendMessage without the SQS client', () => {
  it('sends what the SDK client sends, signed for sqs in the region', async () => {
    await sendMessage(QUEUE_URL, { job_id: 'j-1', note: 'é' }, 5, service())
    const sdk = new SQSClient({ region: REGION, endpoint: fake.endpoint, credentials, maxAttempts: 1 })
    await sdk.send(
      new SendMessageCommand({
        QueueUrl: QUEUE_URL,
        MessageBody: JSON.stringify({ job_id: 'j-1', note: 'é' }),
        DelaySeconds: 5,
      }),
    )

    const [ours, theirs] = received
    if (!ours || !theirs) throw new Error('expected two requests')
    for (const r of [ours, theirs]) {
      expect(r.method).toBe('POST')
      expect(r.url).toBe('/')
      expect(r.headers['x-amz-target']).toBe('AmazonSQS.SendMessage')
      expect(r.headers['content-type']).toBe('application/x-amz-json-1.0')
      expect(r.headers['x-amz-security-token']).toBe('t-1')
      expect(await verifies(r, credentials)).toEqual({ service: 'sqs', region: REGION, ok: true })
    }
    expect(JSON.parse(ours.body)).toEqual(JSON.parse(theirs.body))
    const signed = (r: Received) =>
      /SignedHeaders=([^,]+)/.exec(String(r.headers.authorization))?.[1]?.split(';')
    const sdkSigned = (signed(theirs) ?? []).filter(
      (h) => !h.startsWith('amz-sdk-') && h !== 'x-amz-user-agent' && h !== 'x-amzn-query-mode',
    )
    expect(signed(ours)).toEqual(expect.arrayContaining(sdkSigned))
  })

  it('an answer whose MD5 is not the body digest is refused', async () => {
    fake.replies = [{ status: 200, body: { MessageId: 'm-1', MD5OfMessageBody: md5('something else') } }]
    await expect(sendMessage(QUEUE_URL, { a: 1 }, 0, service())).rejects.toThrow('another body digest')
  })

  it('a refusal names the error type, never the message, and is not retried', async () => {
    fake.replies = [
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.sqs#QueueDoesNotExist',
          message: 'The specified queue does not exist.',
        },
      },
    ]
    const err = (await sendMessage(QUEUE_URL, { secret: 'x' }, 0, service()).catch(
      (e: unknown) => e,
    )) as Error
    expect(err.message).toBe('SendMessage refused: 400 QueueDoesNotExist')
    expect(err.message).not.toContain('secret')
    expect(received).toHaveLength(1)
  })

  it('throttling and a 5xx are tried again, up to three attempts', async () => {
    fake.replies = [
      { status: 400, body: { __type: 'com.amazonaws.sqs#RequestThrottled' } },
      { status: 503, body: { __type: 'ServiceUnavailable' } },
    ]
    await sendMessage(QUEUE_URL, { a: 1 }, 0, service())
    expect(received).toHaveLength(3)

    fake.replies = [500, 500, 500, 500].map((status) => ({ status, body: { __type: 'InternalError' } }))
    fake.received.length = 0
    await expect(sendMessage(QUEUE_URL, { a: 1 }, 0, service())).rejects.toThrow('500 InternalError')
    expect(received).toHaveLength(3)
  })

  it('observers see each send; one that throws stops it before anything is sent', async () => {
    const seen: string[] = []
    const watch = (m: { body: string }) => seen.push(m.body)
    const fault = () => {
      throw new Error('queue unavailable')
    }
    queueObservers.sent.add(watch)
    try {
      await sendMessage(QUEUE_URL, { n: 1 }, 0, service())
      queueObservers.beforeSend.add(fault)
      await expect(sendMessage(QUEUE_URL, { n: 2 }, 0, service())).rejects.toThrow('queue unavailable')
    } finally {
      queueObservers.sent.delete(watch)
      queueObservers.beforeSend.delete(fault)
    }
    expect(seen).toEqual(['{"n":1}'])
    expect(received).toHaveLength(1)
  })
})
