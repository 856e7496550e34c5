/**
 * One sample of each e-mail the product sends, with made-up data, rendered by the same code as
 * the worker: what `lms mail preview` prints and what docs/email-samples.md shows (written by
 * `npx tsx bench/email-samples.ts`, and checked against this module by a unit test, so the page
 * cannot drift from the templates).
 */
import type { NotificationTemplate } from '../events.ts'
import { locales, type Locale } from '../users/user.ts'
import type { CopyContext } from './copy.ts'
import { renderNotification, type RenderedMail } from './render.ts'

export interface MailSample {
  readonly template: NotificationTemplate
  /** Which case of the template (a confirmation says active, pending or waitlisted). */
  readonly variant: string
  readonly data: Readonly<Record<string, unknown>>
  readonly context: CopyContext
}

const enrollment = {
  enrollmentId: '0b9e6f1c-6a43-4d6e-9a55-3f1f8e2b7c10',
  courseId: '5d2c8a47-1f0e-4b7a-8c3d-2e6f9a1b4c58',
  courseTitle: 'Workplace Fire Safety',
}
const learner: CopyContext = { name: 'Zoé', tenantName: 'Acme Logistics' }
const admin: CopyContext = { name: 'Sam', tenantName: 'Acme Logistics' }

export const mailSamples: readonly MailSample[] = [
  {
    template: 'enrollment_confirmation',
    variant: 'active',
    data: { ...enrollment, status: 'active' },
    context: learner,
  },
  {
    template: 'enrollment_confirmation',
    variant: 'pending_approval',
    data: { ...enrollment, status: 'pending_approval' },
    context: learner,
  },
  {
    template: 'enrollment_confirmation',
    variant: 'waitlisted',
    data: { ...enrollment, status: 'waitlisted' },
    context: learner,
  },
  {
    template: 'enrollment_approved',
    variant: 'active',
    data: { ...enrollment, status: 'active' },
    context: learner,
  },
  {
    template: 'enrollment_approved',
    variant: 'waitlisted',
    data: { ...enrollment, status: 'waitlisted' },
    context: learner,
  },
  { template: 'enrollment_denied', variant: 'denied', data: enrollment, context: learner },
  { template: 'waitlist_promoted', variant: 'promoted', data: enrollment, context: learner },
  {
    template: 'certificate_expiring',
    variant: '30 days before',
    data: { ...enrollment, expiresAt: '2026-12-24T09:30:00.000Z', daysLeft: 30 },
    context: learner,
  },
  {
    template: 'certificate_expired',
    variant: 'expired',
    data: { ...enrollment, expiresAt: '2026-12-24T09:30:00.000Z' },
    context: learner,
  },
  {
    template: 'usage_alert',
    variant: '80%',
    data: { month: '2026-11', percent: 80, used: 80_000, cap: 100_000 },
    context: admin,
  },
  {
    template: 'usage_alert',
    variant: '100%',
    data: { month: '2026-11', percent: 100, used: 100_000, cap: 100_000 },
    context: admin,
  },
  {
    template: 'export_ready',
    variant: 'completions, csv',
    data: {
      job_id: '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      report_type: 'completions',
      format: 'csv',
      row_count: 1_284,
    },
    context: admin,
  },
  {
    template: 'contact_request',
    variant: 'from the public form',
    data: {
      contactId: '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7',
      name: 'Jordan Lee',
      email: 'jordan.lee@example.com',
      company: 'Northwind Health',
      subject: 'Pricing for 400 learners',
      message: 'We would like a quote for the Growth plan.\nCould someone call us this week?',
      receivedAt: '2026-11-23T14:05:00.000Z',
    },
    // Sent to the operators' address: no recipient name, no tenant.
    context: { name: null, tenantName: null },
  },
]

export interface RenderedSample extends RenderedMail {
  readonly template: NotificationTemplate
  readonly variant: string
  readonly locale: Locale
}

/** Every sample in every locale (or only those asked for), in the order of `mailSamples`. */
export function renderSamples(
  filter: { readonly template?: NotificationTemplate; readonly locale?: Locale } = {},
): RenderedSample[] {
  return mailSamples
    .filter((s) => filter.template === undefined || s.template === filter.template)
    .flatMap((s) =>
      locales
        .filter((l) => filter.locale === undefined || l === filter.locale)
        .map((locale) => ({
          template: s.template,
          variant: s.variant,
          locale,
          ...renderNotification(s.template, s.data, locale, s.context),
        })),
    )
}
