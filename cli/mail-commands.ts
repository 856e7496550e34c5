/**
 * `lms mail list`: what the product sent, as the local sink holds it (in AWS, mail goes through
 * SES). `lms mail preview`: one sample of each e-mail, rendered as the worker renders it.
 */
import { notificationTemplates, type NotificationTemplate } from '../shared/domain/events.ts'
import { renderSamples } from '../shared/domain/notifications/samples.ts'
import { locales, type Locale } from '../shared/domain/users/user.ts'
import { listSentMail } from '../shared/services/deliveries/mail-service.ts'
import { UsageError } from './args.ts'
import { tenantOf, command, type Command, type Flags } from './flags.ts'

function templateFlag(f: Flags): NotificationTemplate | undefined {
  const template = f.get('template')
  if (template !== undefined && !(notificationTemplates as readonly string[]).includes(template)) {
    throw new UsageError(`--template takes ${notificationTemplates.join(', ')}`)
  }
  return template as NotificationTemplate | undefined
}

function localeFlag(f: Flags): Locale | undefined {
  const locale = f.get('locale')
  if (locale !== undefined && !(locales as readonly string[]).includes(locale)) {
    throw new UsageError(`--locale takes ${locales.join(', ')}`)
  }
  return locale as Locale | undefined
}

export const mailCommands: Record<string, Command> = {
  /** Reads nothing and sends nothing: made-up data through the real templates. */
  'mail preview': command(
    `[--template T] [--locale ${locales.join('|')}]`,
    'one sample of each e-mail, rendered from made-up data (reads and sends nothing)',
    async (f) => {
      const template = templateFlag(f)
      const locale = localeFlag(f)
      return {
        data: renderSamples({
          ...(template === undefined ? {} : { template }),
          ...(locale === undefined ? {} : { locale }),
        }),
      }
    },
  ),
  'mail list': command(
    '[--tenant S] [--to E] [--template T]',
    'the e-mail the product sent (the local sink), newest first',
    async (f) => {
      const template = templateFlag(f)
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
  ),
}
