/**
 * The MailSender of the embedded default: every message is written to the local sink (items in
 * the table), which `lms mail list` reads from another process. Each send is a new item, as each
 * SES send is a new e-mail: a message sent twice shows twice.
 */
import { randomUUID } from 'node:crypto'
import type { MailSender } from '../domain/notifications/mail.ts'
import { putSinkMail } from '../store/deliveries/mail-store.ts'

export const sinkSender: MailSender = {
  async send(m, at) {
    const id = randomUUID()
    await putSinkMail({ ...m, id, sentAt: at })
    return { messageId: id }
  },
}
