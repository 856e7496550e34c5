/** `lms mail list`: what the product sent, as the local sink holds it (in AWS, mail goes through SES). */
import { notificationTemplates } from '../shared/domain/events.ts'
import { listSentMail } from '../shared/services/mail-service.ts'
import { UsageError } from './args.ts'
import { tenantOf, type Command } from './flags.ts'

export const mailCommands: Record<string, Command> = {
  'mail list': async (f) => {
    const template = f.get('template')
    if (template !== undefined && !(notificationTemplates as readonly string[]).includes(template)) {
      throw new UsageError(`--template takes ${notificationTemplates.join(', ')}`)
    }
    const to = f.get('to')
    const tenant = f.has('tenant') ? await tenantOf(f) : undefined
    const mail = await listSentMail({
      ...(tenant ? { tenantId: tenant.id } : {}),
      ...(to === undefined ? {} : { to }),
      ...(template === undefined ? {} : { template }),
    })
    return {
      data: mail.map((m) => ({
        id: m.id,
        to: m.to,
        subject: m.subject,
        template: m.template,
        locale: m.locale,
        text: m.text,
        sent_at: m.sentAt,
      })),
    }
  },
}
