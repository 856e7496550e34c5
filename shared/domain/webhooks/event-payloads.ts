/**
 * The `data` of each webhook event of the catalog, as document 001's event table lists it: the
 * OpenAPI document's `webhooks:` describe deliveries with these schemas.
 */
import * as v from 'valibot'
import { enrollmentStatuses } from '../enrollments/enrollment.ts'
import { statusChangeReasons } from '../enrollments/lifecycle.ts'
import type { EventType } from '../events.ts'
import { roleSources } from '../skills/job-role.ts'
import { skillLevels, skillSources } from '../skills/skill.ts'
import { writableRoles } from '../users/user.ts'

const id = v.string()
const enrollment = { enrollmentId: id, userId: id, courseId: id }
const course = { courseId: id, title: v.string() }
const person = { userId: id, email: v.string() }

export const eventPayloads = {
  'enrollment.created': v.object({ ...enrollment, status: v.picklist(enrollmentStatuses) }),
  'enrollment.completed': v.object({ ...enrollment, completedAt: v.string() }),
  'enrollment.dropped': v.object(enrollment),
  'enrollment.status_changed': v.object({
    ...enrollment,
    previousStatus: v.picklist(enrollmentStatuses),
    status: v.picklist(enrollmentStatuses),
    reason: v.picklist(statusChangeReasons),
  }),
  'course.published': v.object(course),
  'course.archived': v.object(course),
  'user.created': v.object({ ...person, role: v.picklist(writableRoles) }),
  'user.deactivated': v.object(person),
  'user.reactivated': v.object(person),
  'certificate.issued': v.object({
    certificateId: id,
    certificateNumber: v.string(),
    userId: id,
    courseId: v.optional(id),
    pathId: v.optional(id),
  }),
  'certificate.expiring': v.object({
    certificateId: id,
    userId: id,
    courseId: id,
    expiresAt: v.string(),
    daysLeft: v.number(),
  }),
  'certificate.expired': v.object({ certificateId: id, userId: id, courseId: id, expiredAt: v.string() }),
  'job_role.assigned': v.object({
    userId: id,
    jobRoleId: id,
    source: v.picklist(roleSources),
    assignedAt: v.string(),
  }),
  'skill.attained': v.object({
    userId: id,
    skillId: id,
    level: v.picklist(skillLevels),
    previousLevel: v.nullable(v.picklist(skillLevels)),
    source: v.picklist(skillSources),
    earnedAt: v.string(),
    validUntil: v.nullable(v.string()),
  }),
} satisfies Partial<Record<EventType, v.GenericSchema>>
