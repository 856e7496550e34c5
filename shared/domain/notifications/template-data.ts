/**
 * The data each notification template carries (recorded by the change that causes it) and reads
 * back when rendered. Fields are camelCase as the producers write them, except export_ready, whose
 * fields follow the export job's API names (job_id, report_type, format, row_count). An export's
 * file or link is never part of it: the download goes through the authenticated status route.
 */
import * as v from 'valibot'
import type { NotificationTemplate } from '../events.ts'

const Enrollment = {
  enrollmentId: v.string(),
  courseId: v.string(),
  courseTitle: v.string(),
}

export const templateData = {
  enrollment_confirmation: v.object({
    ...Enrollment,
    status: v.optional(v.picklist(['active', 'pending_approval', 'waitlisted']), 'active'),
  }),
  enrollment_approved: v.object({
    ...Enrollment,
    /** Approval runs the seat guard again: a full course with a waitlist waitlists. */
    status: v.optional(v.picklist(['active', 'waitlisted']), 'active'),
  }),
  /** `reason`: the denial's reason when the admin gave one (the API's `{reason}`). */
  enrollment_denied: v.object({ ...Enrollment, reason: v.optional(v.nullable(v.string()), null) }),
  waitlist_promoted: v.object(Enrollment),
  /** Sent with certificate.expiring (30 and 7 days before) and certificate.expired (daysLeft 0). */
  certificate_expiring: v.object({ ...Enrollment, expiresAt: v.string(), daysLeft: v.number() }),
  certificate_expired: v.object({ ...Enrollment, expiresAt: v.string() }),
  usage_alert: v.object({
    month: v.string(),
    percent: v.number(),
    used: v.number(),
    cap: v.number(),
  }),
  export_ready: v.object({
    job_id: v.string(),
    report_type: v.string(),
    format: v.string(),
    row_count: v.number(),
  }),
  contact_request: v.object({
    contactId: v.string(),
    name: v.string(),
    email: v.string(),
    company: v.nullish(v.string(), null),
    subject: v.nullish(v.string(), null),
    message: v.string(),
    receivedAt: v.string(),
  }),
} as const satisfies Record<NotificationTemplate, v.GenericSchema>

export type TemplateData<T extends NotificationTemplate> = v.InferOutput<(typeof templateData)[T]>

/** A notification whose data does not read as its template's: a producer's bug. */
export class UnreadableNotificationData extends Error {
  constructor(template: NotificationTemplate, path: string) {
    super(`The ${template} notification's data does not match its template at ${path}`)
    this.name = 'UnreadableNotificationData'
  }
}

/** @throws UnreadableNotificationData naming the first bad field (never its value) */
export function readTemplateData<T extends NotificationTemplate>(
  template: T,
  data: Readonly<Record<string, unknown>>,
): TemplateData<T> {
  const result = v.safeParse(templateData[template], data)
  if (result.success) return result.output as TemplateData<T>
  const path = result.issues[0].path?.map((p) => String(p.key)).join('.') ?? '(data)'
  throw new UnreadableNotificationData(template, path)
}
