/**
 * What a log line says of an error (shared/log.ts): its name, its cause's name and, for a refused
 * AWS call, the service's request id, the one thing a support case needs; never the message of
 * the cause, which can quote what was sent.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { ServiceUnavailableError } from '../../shared/domain/errors.ts'
import { errorFields } from '../../shared/log.ts'

describe('Logs: the fields of an error', () => {
  it('carry the AWS request id of the call that failed, through the domain error it became', () => {
    const refused = new ProvisionedThroughputExceededException({
      $metadata: { httpStatusCode: 400, requestId: 'QK1T4GDHPBVI0DUTP7MS3C1M1FVV4KQNSO5AEMVJF66Q9ASUAAJG' },
      message: 'throttled on USER#bob@example.com',
    })

    const fields = errorFields(new ServiceUnavailableError({ cause: refused }))

    expect(fields).toEqual({
      errorName: 'ServiceUnavailableError',
      errorMessage: 'The service is temporarily unavailable; retry shortly',
      causeName: 'ProvisionedThroughputExceededException',
      awsRequestId: 'QK1T4GDHPBVI0DUTP7MS3C1M1FVV4KQNSO5AEMVJF66Q9ASUAAJG',
    })
    expect(JSON.stringify(fields)).not.toContain('bob@example.com')
  })

  it('name no request id for an error that no AWS call made', () => {
    expect(errorFields(new Error('boom'))).toEqual({ errorName: 'Error', errorMessage: 'boom' })
  })
})
