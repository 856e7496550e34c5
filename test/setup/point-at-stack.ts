/** Test files that call services directly (to arrange data) use the same stores as the gateway. */
import { afterEach, inject } from 'vitest'
import { pointAtEmbeddedStores } from '../../local/aws-environment.ts'
import { closeOpenReceivers } from '../helpers/receiver.ts'
import { stopOpenStacks } from '../helpers/stack.ts'
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

// Receivers, record stores and stacks a test started are closed after it, whether it passed or not.
afterEach(closeOpenReceivers)
afterEach(stopOpenStacks)
