/**
 * The notifications worker: renders and sends each notification of the queue (one message per
 * notification) through the configured transport. A message whose recipients could not all be sent
 * is reported back to SQS and comes back; the recipients already sent are not sent again. Every
 * e-mail handed to the transport is counted (metric EmailsSent), those of a message that comes back too.
 */
import { mailSender } from '../../../shared/mail/mail-sender.ts'
import { countEmailsSent } from '../../../shared/metrics/app-metrics.ts'
import { queueWorker } from '../../../shared/queue/worker.ts'
import {
  MailNotSent,
  NotificationMessage,
  sendNotification,
} from '../../../shared/services/deliveries/mail-service.ts'

export const handler = queueWorker({
  name: 'notification',
  schema: NotificationMessage,
  handle: async (message) => {
    const ids = { notificationId: message.notification.id, template: message.notification.template }
    try {
      countEmailsSent(await sendNotification(message, mailSender), ids)
    } catch (err) {
      if (err instanceof MailNotSent) countEmailsSent(err.sent, ids)
      throw err
    }
  },
})
