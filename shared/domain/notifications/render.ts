/**
 * Renders a notification for one recipient: subject, plain text and HTML, in the recipient's
 * locale. Pure: the worker reads the data, the recipient and the tenant's name and calls this.
 */
import type { NotificationTemplate } from '../events.ts'
import type { Locale } from '../users/user.ts'
import { copies, type CopyContext } from './copy.ts'
import { htmlDocument, subjectLine } from './html.ts'
import { readTemplateData } from './template-data.ts'

export interface RenderedMail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

const signature: Record<Locale, string> = {
  en: 'This message was sent automatically; replies are not read.',
  'fr-CA': 'Ce message a été envoyé automatiquement; les réponses ne sont pas lues.',
}

/** @throws UnreadableNotificationData when the data does not match the template */
export function renderNotification(
  template: NotificationTemplate,
  data: Readonly<Record<string, unknown>>,
  locale: Locale,
  ctx: CopyContext,
): RenderedMail {
  const write = copies[locale][template] as (
    d: unknown,
    c: CopyContext,
  ) => ReturnType<typeof copies.en.usage_alert>
  const copy = write(readTemplateData(template, data), ctx)
  const subject = subjectLine(copy.subject)
  const paragraphs = [...copy.paragraphs, signature[locale]]
  return { subject, text: `${paragraphs.join('\n\n')}\n`, html: htmlDocument(locale, subject, paragraphs) }
}
