/**
 * Domain events and notifications: what a change says happened, and whom to tell. Services create
 * them with the change and hand both to the store, which writes them in the change's own
 * transaction (the outbox, shared/store/outbox/outbox-items.ts); delivery reads them downstream.
 */
import { randomUUID } from 'node:crypto'
import type * as v from 'valibot'
import type { HeldSkillChange } from './skills/skill.ts'
import type { eventPayloads } from './webhooks/event-payloads.ts'

/** Every event type, so a stored event can be read back as one. */
export const eventTypes = [
  'user.created',
  'user.deactivated',
  'user.reactivated',
  'enrollment.created',
  'enrollment.completed',
  'enrollment.dropped',
  'enrollment.status_changed',
  'course.published',
  'course.archived',
  'certificate.issued',
  'certificate.expiring',
  'certificate.expired',
  'job_role.assigned',
  'skill.attained',
  // Internal: learning activity for statement export; not in the webhook catalog.
  'module.completed',
  'quiz_attempt.graded',
  'cmi5.launched',
  'cmi5.statement',
] as const

export type EventType = (typeof eventTypes)[number]

export interface DomainEvent {
  readonly id: string
  readonly event: EventType
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

type Payloads = typeof eventPayloads
/** A webhook event's data is the one its OpenAPI `webhooks:` entry describes; internal events are free. */
export type EventData<E extends EventType> = E extends keyof Payloads
  ? v.InferOutput<Payloads[E]>
  : Record<string, unknown>

export function newEvent<E extends EventType>(event: E, data: EventData<E>, now: string): DomainEvent {
  return { id: randomUUID(), event, createdAt: now, data }
}

export const notificationTemplates = [
  'enrollment_confirmation',
  'enrollment_approved',
  'enrollment_denied',
  'waitlist_promoted',
  'certificate_expiring',
  'certificate_expired',
  'usage_alert',
  'export_ready',
  'contact_request',
] as const
export type NotificationTemplate = (typeof notificationTemplates)[number]

/**
 * A message to a person, recorded with the change that causes it: the enrollment confirmation is
 * "always sent", so it is written in the enrollment's transaction.
 */
export interface Notification {
  readonly id: string
  readonly template: NotificationTemplate
  /** The recipient; null for a notice to the tenant's owners and admins (resolved when sent). */
  readonly userId: string | null
  /**
   * An explicit address instead of a user (an export's `notify_email`, the operators' address for a
   * contact request); when set it is the only recipient.
   */
  readonly email?: string
  readonly createdAt: string
  readonly data: Record<string, unknown>
}

export function newNotification(
  template: NotificationTemplate,
  userId: string | null,
  data: Record<string, unknown>,
  now: string,
  email?: string,
): Notification {
  return {
    id: randomUUID(),
    template,
    userId,
    createdAt: now,
    data,
    ...(email === undefined ? {} : { email }),
  }
}

/** What a change causes besides itself: written in the same transaction, or not at all. */
export interface Effects {
  readonly events?: readonly DomainEvent[]
  readonly notifications?: readonly Notification[]
  /** Held skill levels the change raises (a course completion granting a skill). */
  readonly skillLevels?: readonly HeldSkillChange[]
}

export const noEffects: Effects = {}
