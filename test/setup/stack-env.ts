/**
 * The environment of test files that call services directly: the same stores as the gateway. Its own
 * module, imported first, because `shared/config.ts` reads the environment once when first imported
 * and the helpers imported beside it (the response validator builds the OpenAPI document) reach it.
 */
import { inject } from 'vitest'
import { pointAtEmbeddedStores } from '../../local/aws-environment.ts'
import { contentBucketName, exportsBucketName } from '../../shared/store/core/table-schema.ts'

pointAtEmbeddedStores(inject('dynamoEndpoint'), inject('emulatorEndpoint'))
process.env.LMS_CONTENT_BUCKET = contentBucketName
process.env.LMS_EXPORTS_BUCKET = exportsBucketName
process.env.LMS_LOG_LEVEL = 'silent'
process.env.LMS_TENANT_CACHE_MS = '0'
process.env.LMS_ENCRYPTION_KEY = inject('encryptionKey')
process.env.LMS_ALLOW_LOOPBACK_TARGETS = '1'
process.env.LMS_WEBHOOKS_QUEUE_URL = inject('webhooksQueueUrl')
process.env.LMS_WEBHOOK_RETRY_DELAYS = '1,1,1,1'
process.env.LMS_WEBHOOK_TIMEOUT_MS = '1500'
process.env.LMS_XAPI_QUEUE_URL = inject('xapiQueueUrl')
process.env.LMS_XAPI_RETRY_DELAYS = '1,1,1,1'
process.env.LMS_XAPI_TIMEOUT_MS = '1500'
process.env.LMS_NOTIFICATIONS_QUEUE_URL = inject('notificationsQueueUrl')
process.env.LMS_OPERATOR_EMAIL = 'operators@lms.test'
