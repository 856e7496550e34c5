/**
 * The notifications worker: renders and sends each notification of the queue (one message per
 * notification) through the configured transport. A message whose recipients could not all be sent
 * is reported back to SQS and comes back; the recipients already sent are not sent again.
 */
import { mailSender } from '../../../shared/mail/mail-sender.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import { NotificationMessage, sendNotification } from '../../../shared/services/deliveries/mail-service.ts'

export const handler = queueWorker({
  name: 'notification',
  schema: NotificationMessage,
  handle: (message) => sendNotification(message, mailSender),
})
