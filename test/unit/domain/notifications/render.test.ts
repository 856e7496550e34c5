import { describe, expect, it } from 'vitest'
import { notificationTemplates, type NotificationTemplate } from '../../../../shared/domain/events.ts'
import { escapeHtml, subjectLine } from '../../../../shared/domain/notifications/html.ts'
import { renderNotification } from '../../../../shared/domain/notifications/render.ts'
import { UnreadableNotificationData } from '../../../../shared/domain/notifications/template-data.ts'

const course = { enrollmentId: 'e1', courseId: 'c1', courseTitle: 'Safety <First> & "Co"' }
const samples: Record<NotificationTemplate, Record<string, unknown>> = {
  enrollment_confirmation: { ...course, status: 'active' },
  enrollment_approved: { ...course, status: 'active' },
  enrollment_denied: course,
  waitlist_promoted: course,
  certificate_expiring: { ...course, expiresAt: '2026-12-24T09:30:00.000Z', daysLeft: 7 },
  certificate_expired: { ...course, expiresAt: '2026-12-24T09:30:00.000Z' },
  usage_alert: { month: '2026-11', percent: 80, used: 8000, cap: 10000 },
  export_ready: { job_id: 'job-1', report_type: 'completions', format: 'csv', row_count: 1234 },
  contact_request: {
    contactId: 'ct-1',
    name: 'Ada <script>',
    email: 'ada@example.com',
    company: 'Analytical',
    subject: 'Pricing',
    message: 'Line one\nLine <two>',
    receivedAt: '2026-11-23T10:00:00.000Z',
  },
}

/** What each template's subject says in each locale (the rest is read in full below). */
const subjects: Record<NotificationTemplate, { en: string; 'fr-CA': string }> = {
  enrollment_confirmation: {
    en: 'You are enrolled in Safety <First> & "Co"',
    'fr-CA': 'Inscription confirmée : Safety <First> & "Co"',
  },
  enrollment_approved: {
    en: 'Your enrollment in Safety <First> & "Co" was approved',
    'fr-CA': 'Votre inscription au cours Safety <First> & "Co" a été approuvée',
  },
  enrollment_denied: {
    en: 'Your enrollment in Safety <First> & "Co" was declined',
    'fr-CA': 'Votre inscription au cours Safety <First> & "Co" a été refusée',
  },
  waitlist_promoted: {
    en: 'A seat opened up: you are enrolled in Safety <First> & "Co"',
    'fr-CA': 'Une place s’est libérée : vous êtes inscrit au cours Safety <First> & "Co"',
  },
  certificate_expiring: {
    en: 'Your Safety <First> & "Co" certificate expires in 7 days',
    'fr-CA': 'Votre certificat du cours Safety <First> & "Co" expire dans 7 jours',
  },
  certificate_expired: {
    en: 'Your Safety <First> & "Co" certificate has expired',
    'fr-CA': 'Votre certificat du cours Safety <First> & "Co" a expiré',
  },
  usage_alert: {
    en: "Acme: 80% of this month's API requests used",
    'fr-CA': 'Acme : 80 % des requêtes API du mois utilisées',
  },
  export_ready: {
    en: 'Your completions export is ready',
    'fr-CA': 'Votre exportation des achèvements est prête',
  },
  contact_request: { en: 'Contact request: Pricing', 'fr-CA': 'Demande de contact : Pricing' },
}

const ctx = { name: 'Marie', tenantName: 'Acme' }

describe('Function: renderNotification', () => {
  for (const template of notificationTemplates) {
    for (const locale of ['en', 'fr-CA'] as const) {
      it(`renders ${template} in ${locale}: subject, text and escaped HTML`, () => {
        const mail = renderNotification(template, samples[template], locale, ctx)

        expect(mail.subject).toBe(subjects[template][locale])
        expect(mail.text.length).toBeGreaterThan(mail.subject.length)
        expect(mail.html).toContain(`<html lang="${locale}">`)
        // Nothing of the data reaches the HTML unescaped.
        expect(mail.html).not.toMatch(/<(script|First|two)>/)
        expect(mail.html).toContain(`<title>${escapeHtml(mail.subject)}</title>`)
        if (template !== 'contact_request') {
          expect(mail.text).toContain(locale === 'en' ? 'Hello Marie,' : 'Bonjour Marie,')
        }
      })
    }
  }

  it('says what happens next for a pending or waitlisted enrollment', () => {
    const pending = renderNotification(
      'enrollment_confirmation',
      { ...course, status: 'pending_approval' },
      'en',
      ctx,
    )
    const waitlisted = renderNotification(
      'enrollment_confirmation',
      { ...course, status: 'waitlisted' },
      'fr-CA',
      ctx,
    )
    const approvedWaitlisted = renderNotification(
      'enrollment_approved',
      { ...course, status: 'waitlisted' },
      'en',
      ctx,
    )

    expect(pending.subject).toBe('Your enrollment in Safety <First> & "Co" is awaiting approval')
    expect(waitlisted.subject).toBe('Vous êtes sur la liste d’attente du cours Safety <First> & "Co"')
    expect(approvedWaitlisted.text).toContain('you are on its waitlist')
  })

  it('writes the usage figures in the locale’s number format and says what 100% means', () => {
    const data = { month: '2026-11', percent: 100, used: 10000, cap: 10000 }

    const en = renderNotification('usage_alert', data, 'en', ctx)
    const fr = renderNotification('usage_alert', data, 'fr-CA', ctx)

    expect(en.text).toContain('Acme has made 10,000 of its 10,000 API requests for 2026-11 (100%).')
    expect(en.text).toContain('Further API requests are refused')
    expect(fr.text).toContain(
      'Acme a effectué 10\u00a0000 de ses 10\u00a0000 requêtes API pour 2026-11 (100 %).',
    )
  })

  it('never carries an export’s file or link, only its job id and figures', () => {
    const mail = renderNotification('export_ready', samples.export_ready, 'en', {
      name: null,
      tenantName: 'Acme',
    })

    expect(mail.text).toContain('Hello,\n')
    expect(mail.text).toContain('job-1 (CSV, 1,234 rows)')
    expect(mail.text).not.toMatch(/https?:/)
  })

  it('forwards every field of a contact request, keeping the message’s own lines', () => {
    const mail = renderNotification('contact_request', samples.contact_request, 'en', {
      name: null,
      tenantName: null,
    })

    expect(mail.text).toContain(
      'Name: Ada <script>\nE-mail: ada@example.com\nCompany: Analytical\nSubject: Pricing',
    )
    expect(mail.text).toContain('Line one\nLine <two>')
    expect(mail.html).toContain('Line one<br>Line &lt;two&gt;')
  })

  it('keeps the subject on one line whatever the data holds', () => {
    const mail = renderNotification(
      'enrollment_denied',
      { ...course, courseTitle: 'Evil\r\nBcc: x@example.com' },
      'en',
      ctx,
    )

    expect(mail.subject).toBe('Your enrollment in Evil Bcc: x@example.com was declined')
    expect(subjectLine('a\u0000\tb')).toBe('a b')
  })

  it('refuses data that does not match its template, naming the field and never its value', () => {
    const render = () => renderNotification('usage_alert', { month: '2026-11', percent: 'eighty' }, 'en', ctx)

    expect(render).toThrow(UnreadableNotificationData)
    expect(render).toThrow('at percent')
  })
})
