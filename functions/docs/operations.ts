/**
 * What the OpenAPI document says of each route, declared once per route key: its summary and tag,
 * the valibot schemas the handler validates its query and body with, and the schemas its answers
 * are built from (the representations' types are inferred from them). The document is generated
 * from these rows and the route table (openapi-document.ts), which refuses a public route without
 * a row here, or a row without a route.
 */
import * as v from 'valibot'
import { ContactInput } from '../../shared/domain/contact.ts'
import {
  CreateCourseInput,
  courseSorts,
  ListCoursesFilters,
  UpdateCourseInput,
} from '../../shared/domain/courses/course.ts'
import { CourseSettingsInput } from '../../shared/domain/courses/course-settings.ts'
import { ReorderModulesInput, UpdateModuleInput } from '../../shared/domain/courses/module-edits.ts'
import { AddModuleInput } from '../../shared/domain/courses/module.ts'
import {
  BulkEnrollmentInput,
  CourseEnrollmentInput,
  CreateEnrollmentInput,
  enrollmentSorts,
  ListEnrollmentsFilters,
  UpdateEnrollmentInput,
} from '../../shared/domain/enrollments/enrollment.ts'
import { ApproveEnrollmentInput, DenyEnrollmentInput } from '../../shared/domain/enrollments/lifecycle.ts'
import {
  AddMembersInput,
  CreateGroupInput,
  GroupSearchQuery,
  RemoveMembersInput,
  UpdateGroupInput,
} from '../../shared/domain/groups/group.ts'
import { ExportJobInput } from '../../shared/domain/reports/export-jobs.ts'
import {
  ComplianceFilters,
  completionSorts,
  CompletionsFilters,
  CoursePerformanceFilters,
  enrollmentReportSorts,
  EnrollmentsFilters,
  UserActivityFilters,
} from '../../shared/domain/reports/queries.ts'
import {
  ComplianceRowSchema,
  CompletionRowSchema,
  CoursePerformanceRowSchema,
  EnrollmentRowSchema,
  UserActivityRowSchema,
} from '../../shared/domain/reports/rows.ts'
import {
  CreateJobRoleInput,
  JobRoleListQuery,
  PutUserJobRolesInput,
  UpdateJobRoleInput,
} from '../../shared/domain/skills/job-role.ts'
import {
  CreateSkillDomainInput,
  CreateSkillInput,
  SetHeldSkillInput,
  UpdateSkillInput,
} from '../../shared/domain/skills/catalogue.ts'
import { MatrixQuery } from '../../shared/domain/skills/matrix.ts'
import { SignupInput } from '../../shared/domain/tenants/signup.ts'
import { CreateUserInput, UpdateUserInput } from '../../shared/domain/users/user-schemas.ts'
import {
  CreateEndpointInput,
  ListDeliveriesFilters,
  RotateSecretInput,
  UpdateEndpointInput,
} from '../../shared/domain/webhooks/webhook.ts'
import { EventEnvelopeSchema, ListEventsFilters } from '../../shared/domain/webhooks/event-list.ts'
import { ReplayInput } from '../../shared/domain/webhooks/webhook-replay.ts'
import { ConnectionInput } from '../../shared/domain/xapi/connection.ts'
import { CourseEnrollmentsQuery } from '../courses/queries.ts'
import {
  CourseSchema,
  CourseListItemSchema,
  CourseSettingsSchema,
  ModuleSchema,
} from '../courses/representation.ts'
import { CompletionsQuery } from '../enrollments/queries.ts'
import {
  BulkResultSchema,
  CompletionSchema,
  CourseEnrollmentItemSchema,
  EnrollmentSchema,
  ProgressSchema,
} from '../enrollments/representation.ts'
import { groupSorts } from '../groups/queries.ts'
import {
  GroupMemberSchema,
  GroupSchema,
  MembersAddedSchema,
  MembersRemovedSchema,
} from '../groups/representation.ts'
import { PlanSchema } from '../plans/representation.ts'
import { ContactReceiptSchema, SignupResultSchema } from '../public/representation.ts'
import { ExportJobSchema, QueuedExportSchema } from '../reports/representation.ts'
import { UsageSchema } from '../reports/usage-representation.ts'
import { SkillListQuery } from '../skills/catalogue.ts'
import { HeldSkillSchema, SkillDomainSchema, SkillSchema } from '../skills/catalogue-representation.ts'
import { LocaleQuery } from '../skills/queries.ts'
import {
  ImportedRolesSchema,
  JobRoleSchema,
  MatrixMetaSchema,
  MatrixRowSchema,
  PersonSkillsSchema,
} from '../skills/representation.ts'
import { ListUsersFilters, TranscriptQuery, userSorts } from '../users/list-users-query.ts'
import { UserListItemSchema, UserSchema } from '../users/representation.ts'
import { TranscriptMetaSchema, TranscriptSchema } from '../users/transcript.ts'
import { DeliverySchema } from '../webhooks/representation.ts'
import {
  ConnectionSchema,
  ConnectionTestSchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  ReplaySchema,
} from '../integrations/representation.ts'
import { JwksSchema } from '../lti/representation.ts'
import {
  AddLtiDeploymentInput,
  CreateLtiRegistrationInput,
  UpdateLtiRegistrationInput,
} from '../../shared/domain/lti/registration-input.ts'
import {
  DynamicRegistrationQuery,
  LtiDeploymentSchema,
  LtiRegistrationSchema,
  RegistrationLinkSchema,
} from '../lti-admin/representation.ts'
import { refusalStatuses } from '../lti-admin/registration-pages.ts'

type Schema = v.GenericSchema

/** One answer of a route: the envelope around `data` (and `meta`), or a body of another kind. */
export type Answer =
  | { readonly kind: 'data'; readonly data: Schema | 'openapi'; readonly meta?: Schema | 'list' }
  | { readonly kind: 'bare-json'; readonly schema: Schema | 'openapi' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'redirect' }
  | { readonly kind: 'html' }
  | { readonly kind: 'csv-or-data'; readonly data: Schema; readonly meta: Schema }

export interface OperationDoc {
  readonly summary: string
  readonly tag: string
  readonly description?: string
  readonly query?: Schema
  /** The list conventions: `page`, `per_page`, and `meta {page, per_page, total}` on the answer. */
  readonly paged?: true
  readonly sorts?: readonly string[]
  readonly body?: Schema
  /** A body example shown in the document (request bodies are validated by `body`). */
  readonly example?: Record<string, unknown>
  /** Success answers by status code. */
  readonly answers: Readonly<Record<number, Answer>>
  /** Error statuses beyond the ones every route of its kind can answer (see openapi-document.ts). */
  readonly errors?: readonly number[]
}

const one = (data: Schema): Answer => ({ kind: 'data', data })
const list = (item: Schema): Answer => ({ kind: 'data', data: v.array(item), meta: 'list' })
const empty: Answer = { kind: 'empty' }
const html: Answer = { kind: 'html' }
const redirect: Answer = { kind: 'redirect' }

const USER_ID = '8d3c2a4e-1f7b-4c55-9a61-2b0e7f3d9c10'
const COURSE_ID = '0f6b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d'

export const operations: Readonly<Record<string, OperationDoc>> = {
  'GET /api/v1/plans': {
    summary: 'List the plans',
    tag: 'Plans',
    answers: { 200: { kind: 'data', data: v.array(PlanSchema) } },
  },
  'GET /api/v1/docs': {
    summary: 'The API description, in the envelope',
    tag: 'Docs',
    description: 'The same document as /api/v1/openapi.json, as `data` of the envelope.',
    answers: { 200: { kind: 'data', data: 'openapi' } },
  },
  'GET /api/v1/openapi.json': {
    summary: 'The OpenAPI document',
    tag: 'Docs',
    description: 'This document, unwrapped: generate a client from it.',
    answers: { 200: { kind: 'bare-json', schema: 'openapi' } },
  },
  'POST /api/v1/signup': {
    summary: 'Sign up for a free tenant',
    tag: 'Public',
    body: SignupInput,
    answers: { 201: one(SignupResultSchema) },
    errors: [409, 422],
  },
  'POST /api/v1/contact': {
    summary: 'Send a message to sales',
    tag: 'Public',
    body: ContactInput,
    answers: { 202: one(ContactReceiptSchema) },
  },

  'GET /api/v1/users': {
    summary: 'List users',
    tag: 'Users',
    query: ListUsersFilters,
    paged: true,
    sorts: userSorts,
    answers: { 200: list(UserListItemSchema) },
  },
  'POST /api/v1/users': {
    summary: 'Create a user',
    tag: 'Users',
    body: CreateUserInput,
    example: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', role: 'learner' },
    answers: { 201: one(UserSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/users/{id}': { summary: 'Get a user', tag: 'Users', answers: { 200: one(UserSchema) } },
  'PATCH /api/v1/users/{id}': {
    summary: 'Update a user',
    tag: 'Users',
    body: UpdateUserInput,
    example: { first_name: 'Augusta' },
    answers: { 200: one(UserSchema) },
    errors: [409, 422],
  },
  'DELETE /api/v1/users/{id}': {
    summary: 'Deactivate a user',
    tag: 'Users',
    answers: { 204: empty },
    errors: [409, 422],
  },
  'GET /api/v1/users/{id}/transcript': {
    summary: "A user's transcript",
    tag: 'Users',
    description: 'JSON in the envelope, or `format=csv` for an RFC 4180 file (UTF-8 with a BOM).',
    query: TranscriptQuery,
    answers: { 200: { kind: 'csv-or-data', data: TranscriptSchema, meta: TranscriptMetaSchema } },
  },

  'GET /api/v1/groups': {
    summary: 'List groups',
    tag: 'Groups',
    query: GroupSearchQuery,
    paged: true,
    sorts: groupSorts,
    answers: { 200: list(GroupSchema) },
  },
  'POST /api/v1/groups': {
    summary: 'Create a group',
    tag: 'Groups',
    body: CreateGroupInput,
    example: { name: 'Night shift' },
    answers: { 201: one(GroupSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/groups/{id}': { summary: 'Get a group', tag: 'Groups', answers: { 200: one(GroupSchema) } },
  'PATCH /api/v1/groups/{id}': {
    summary: 'Update a group',
    tag: 'Groups',
    body: UpdateGroupInput,
    answers: { 200: one(GroupSchema) },
    errors: [409, 422],
  },
  'DELETE /api/v1/groups/{id}': {
    summary: 'Delete a group',
    tag: 'Groups',
    answers: { 204: empty },
    errors: [409],
  },
  'GET /api/v1/groups/{id}/members': {
    summary: "List a group's members",
    tag: 'Groups',
    query: GroupSearchQuery,
    paged: true,
    answers: { 200: list(GroupMemberSchema) },
  },
  'POST /api/v1/groups/{id}/members': {
    summary: 'Add members to a group',
    tag: 'Groups',
    body: AddMembersInput,
    example: { user_ids: [USER_ID] },
    answers: { 200: one(MembersAddedSchema) },
    errors: [409, 422],
  },
  'DELETE /api/v1/groups/{id}/members': {
    summary: 'Remove members from a group',
    tag: 'Groups',
    body: RemoveMembersInput,
    answers: { 200: one(MembersRemovedSchema) },
    errors: [409, 422],
  },

  'GET /api/v1/courses': {
    summary: 'List courses',
    tag: 'Courses',
    query: ListCoursesFilters,
    paged: true,
    sorts: courseSorts,
    answers: { 200: list(CourseListItemSchema) },
  },
  'POST /api/v1/courses': {
    summary: 'Create a course',
    tag: 'Courses',
    body: CreateCourseInput,
    example: { title: 'Fire safety' },
    answers: { 201: one(CourseSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/courses/{id}': {
    summary: 'Get a course',
    tag: 'Courses',
    answers: { 200: one(CourseSchema) },
  },
  'PATCH /api/v1/courses/{id}': {
    summary: 'Update a course',
    tag: 'Courses',
    body: UpdateCourseInput,
    example: { status: 'published' },
    answers: { 200: one(CourseSchema) },
    errors: [409, 422],
  },
  'DELETE /api/v1/courses/{id}': {
    summary: 'Archive a course',
    tag: 'Courses',
    answers: { 204: empty },
    errors: [409, 422],
  },
  'GET /api/v1/courses/{id}/modules': {
    summary: "List a course's modules",
    tag: 'Courses',
    answers: { 200: one(v.array(ModuleSchema)) },
  },
  'POST /api/v1/courses/{id}/modules': {
    summary: 'Add a module to a course',
    tag: 'Courses',
    body: AddModuleInput,
    example: { title: 'Evacuation routes', module_type: 'video' },
    answers: { 201: one(ModuleSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/courses/{id}/settings': {
    summary: "A course's enrollment and certificate settings",
    tag: 'Courses',
    answers: { 200: one(CourseSettingsSchema) },
  },
  'PATCH /api/v1/courses/{id}/settings': {
    summary: "Change a course's settings",
    tag: 'Courses',
    description:
      'The settings `lms course configure` sets, with its rules; fields left out keep their value. ' +
      'Raising or removing the seat limit gives the freed seats to the waitlist.',
    body: CourseSettingsInput,
    example: { requires_approval: true, seat_limit: 20, waitlist: true },
    answers: { 200: one(CourseSettingsSchema) },
    errors: [409],
  },
  'PATCH /api/v1/courses/{id}/modules/{module_id}': {
    summary: "Change a module's title or description",
    tag: 'Courses',
    body: UpdateModuleInput,
    example: { title: 'Evacuation routes (2027)' },
    answers: { 200: one(ModuleSchema) },
    errors: [409],
  },
  'DELETE /api/v1/courses/{id}/modules/{module_id}': {
    summary: 'Delete a module',
    tag: 'Courses',
    description:
      'The modules after it move up one place. Refused (409) while the course is published and has ' +
      'enrollments; enrollments of a draft course keep their progress in the modules left.',
    answers: { 204: empty },
    errors: [409, 422],
  },
  'PUT /api/v1/courses/{id}/modules/order': {
    summary: "Reorder a course's modules",
    tag: 'Courses',
    description:
      "`module_ids` names every one of the course's modules once, in the new order. Refused (409) " +
      'while the course is published and has enrollments.',
    body: ReorderModulesInput,
    example: {
      module_ids: ['5a7e0c1b-2d3f-4e5a-9b6c-7d8e9f0a1b2c', '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f'],
    },
    answers: { 200: one(v.array(ModuleSchema)) },
    errors: [409, 422],
  },
  'GET /api/v1/courses/{id}/enrollments': {
    summary: "List a course's enrollments",
    tag: 'Courses',
    query: CourseEnrollmentsQuery,
    paged: true,
    answers: { 200: list(CourseEnrollmentItemSchema) },
  },
  'POST /api/v1/courses/{id}/enrollments': {
    summary: 'Enroll a user in a course',
    tag: 'Courses',
    body: CourseEnrollmentInput,
    example: { user_id: USER_ID },
    answers: { 201: one(EnrollmentSchema) },
    errors: [409, 422],
  },

  'GET /api/v1/enrollments': {
    summary: 'List enrollments',
    tag: 'Enrollments',
    query: ListEnrollmentsFilters,
    paged: true,
    sorts: enrollmentSorts,
    answers: { 200: list(EnrollmentSchema) },
  },
  'POST /api/v1/enrollments': {
    summary: 'Enroll a user',
    tag: 'Enrollments',
    body: CreateEnrollmentInput,
    example: { user_id: USER_ID, course_id: COURSE_ID, due_date: '2026-12-31T00:00:00Z' },
    answers: { 201: one(EnrollmentSchema) },
    // 404: the user or the course named in the body is not the tenant's.
    errors: [404, 409, 422],
  },
  'POST /api/v1/enrollments/bulk': {
    summary: 'Enroll up to 500 users at once',
    tag: 'Enrollments',
    description: '201 when every row is enrolled; 207 with the refused rows otherwise.',
    body: BulkEnrollmentInput,
    example: { enrollments: [{ user_id: USER_ID, course_id: COURSE_ID }] },
    answers: { 201: one(BulkResultSchema), 207: one(BulkResultSchema) },
    errors: [422],
  },
  'GET /api/v1/enrollments/{id}': {
    summary: 'Get an enrollment',
    tag: 'Enrollments',
    answers: { 200: one(EnrollmentSchema) },
  },
  'PATCH /api/v1/enrollments/{id}': {
    summary: "Change an enrollment's due date",
    tag: 'Enrollments',
    body: UpdateEnrollmentInput,
    answers: { 200: one(EnrollmentSchema) },
    errors: [409, 422],
  },
  'DELETE /api/v1/enrollments/{id}': {
    summary: 'Drop an enrollment',
    tag: 'Enrollments',
    answers: { 204: empty },
    errors: [409, 422],
  },
  'POST /api/v1/enrollments/{id}/approve': {
    summary: 'Approve an enrollment pending approval',
    tag: 'Enrollments',
    description:
      'Only from `pending_approval` (else 409). The seat guard runs again: active, or `waitlisted` ' +
      'when the course is full and keeps a waitlist; a full course without one answers 422. ' +
      'Fires `enrollment.status_changed` (reason `approved`).',
    body: ApproveEnrollmentInput,
    answers: { 200: one(EnrollmentSchema) },
    errors: [409, 422],
  },
  'POST /api/v1/enrollments/{id}/deny': {
    summary: 'Deny an enrollment pending approval',
    tag: 'Enrollments',
    description:
      'Only from `pending_approval` (else 409); the enrollment is dropped (`enrollment.dropped` and ' +
      '`enrollment.status_changed`, reason `denied`) and the learner told.',
    body: DenyEnrollmentInput,
    example: { reason: 'This course is for the night shift.' },
    answers: { 200: one(EnrollmentSchema) },
    errors: [409],
  },
  'GET /api/v1/enrollments/{id}/progress': {
    summary: "An enrollment's progress",
    tag: 'Enrollments',
    answers: { 200: one(ProgressSchema) },
  },
  'GET /api/v1/completions': {
    summary: 'List completions',
    tag: 'Enrollments',
    query: CompletionsQuery,
    paged: true,
    answers: { 200: list(CompletionSchema) },
  },

  'GET /api/v1/job-roles': {
    summary: 'List job roles',
    tag: 'Skills',
    query: JobRoleListQuery,
    paged: true,
    answers: { 200: list(JobRoleSchema) },
  },
  'POST /api/v1/job-roles': {
    summary: 'Create a job role',
    tag: 'Skills',
    body: CreateJobRoleInput,
    example: { name: 'Forklift operator' },
    answers: { 201: one(JobRoleSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/job-roles/{id}': {
    summary: 'Get a job role',
    tag: 'Skills',
    answers: { 200: one(JobRoleSchema) },
  },
  'PATCH /api/v1/job-roles/{id}': {
    summary: 'Update a job role',
    tag: 'Skills',
    body: UpdateJobRoleInput,
    answers: { 200: one(JobRoleSchema) },
    errors: [409, 422],
  },
  'PUT /api/v1/users/{id}/job-roles': {
    summary: "Replace a user's imported job roles",
    tag: 'Skills',
    body: PutUserJobRolesInput,
    example: { job_role_ids: [] },
    answers: { 200: one(ImportedRolesSchema) },
    errors: [409, 422],
  },
  'GET /api/v1/users/{id}/skills': {
    summary: "A user's skills",
    tag: 'Skills',
    query: LocaleQuery,
    answers: { 200: one(PersonSkillsSchema) },
  },
  'GET /api/v1/skills/matrix': {
    summary: 'The team skills matrix',
    tag: 'Skills',
    query: MatrixQuery,
    paged: true,
    answers: { 200: { kind: 'data', data: v.array(MatrixRowSchema), meta: MatrixMetaSchema } },
  },

  'GET /api/v1/skill-domains': {
    summary: 'List skill domains',
    tag: 'Skills',
    paged: true,
    answers: { 200: list(SkillDomainSchema) },
  },
  'POST /api/v1/skill-domains': {
    summary: 'Create a skill domain',
    tag: 'Skills',
    body: CreateSkillDomainInput,
    example: { name: 'Safety', names: { 'fr-CA': 'Sécurité' } },
    answers: { 201: one(SkillDomainSchema) },
  },
  'GET /api/v1/skills': {
    summary: 'List skills',
    tag: 'Skills',
    query: SkillListQuery,
    paged: true,
    answers: { 200: list(SkillSchema) },
  },
  'POST /api/v1/skills': {
    summary: 'Create a skill',
    tag: 'Skills',
    body: CreateSkillInput,
    example: { name: 'Forklift driving', domain_id: COURSE_ID },
    answers: { 201: one(SkillSchema) },
  },
  'GET /api/v1/skills/{id}': { summary: 'Get a skill', tag: 'Skills', answers: { 200: one(SkillSchema) } },
  'PATCH /api/v1/skills/{id}': {
    summary: 'Update a skill',
    tag: 'Skills',
    body: UpdateSkillInput,
    answers: { 200: one(SkillSchema) },
  },
  'PUT /api/v1/users/{id}/skills/{skill_id}': {
    summary: "Record a user's held level of a skill",
    tag: 'Skills',
    description: 'Fires `skill.attained` when the level rises and the source is not `manual`.',
    body: SetHeldSkillInput,
    example: { level: 'proficient', source: 'assessment' },
    answers: { 200: one(HeldSkillSchema) },
  },
  'DELETE /api/v1/users/{id}/skills/{skill_id}': {
    summary: "Remove a user's held skill",
    tag: 'Skills',
    answers: { 204: empty },
  },

  'GET /api/v1/reports/completions': {
    summary: 'Completions report',
    tag: 'Reports',
    query: CompletionsFilters,
    paged: true,
    sorts: completionSorts,
    answers: { 200: list(CompletionRowSchema) },
  },
  'GET /api/v1/reports/enrollments': {
    summary: 'Enrollments report',
    tag: 'Reports',
    query: EnrollmentsFilters,
    paged: true,
    sorts: enrollmentReportSorts,
    answers: { 200: list(EnrollmentRowSchema) },
  },
  'GET /api/v1/reports/compliance': {
    summary: 'Compliance report',
    tag: 'Reports',
    query: ComplianceFilters,
    paged: true,
    answers: { 200: list(ComplianceRowSchema) },
  },
  'GET /api/v1/reports/users/activity': {
    summary: 'User activity report',
    tag: 'Reports',
    query: UserActivityFilters,
    paged: true,
    answers: { 200: list(UserActivityRowSchema) },
  },
  'GET /api/v1/reports/courses/performance': {
    summary: 'Course performance report',
    tag: 'Reports',
    query: CoursePerformanceFilters,
    paged: true,
    answers: { 200: list(CoursePerformanceRowSchema) },
  },
  'POST /api/v1/reports/export': {
    summary: 'Queue a report export',
    tag: 'Reports',
    body: ExportJobInput,
    example: { report_type: 'completions', format: 'csv' },
    answers: { 202: one(QueuedExportSchema) },
    errors: [422],
  },
  'GET /api/v1/reports/export/{id}': {
    summary: 'Get an export job',
    tag: 'Reports',
    answers: { 200: one(ExportJobSchema) },
  },

  'GET /api/v1/usage': {
    summary: 'Usage of the calling key and its tenant',
    tag: 'Usage',
    description:
      'The key’s minute window and the tenant’s calendar month (UTC), as this request was counted in them: the answer includes itself and agrees with its own `RateLimit` headers.',
    answers: { 200: one(UsageSchema) },
  },

  'GET /api/v1/events': {
    summary: 'List events',
    tag: 'Events',
    description:
      'The tenant’s webhook events of the last 30 days, newest first, each the envelope its deliveries carry (`id` is the event’s). `type` takes one event type or several, comma-separated.',
    query: ListEventsFilters,
    paged: true,
    answers: { 200: list(EventEnvelopeSchema) },
  },
  'GET /api/v1/events/{id}': {
    summary: 'Get an event',
    tag: 'Events',
    answers: { 200: one(EventEnvelopeSchema) },
  },
  'GET /api/v1/webhooks/deliveries': {
    summary: 'List webhook deliveries',
    tag: 'Webhooks',
    query: ListDeliveriesFilters,
    paged: true,
    answers: { 200: list(DeliverySchema) },
  },
  'GET /api/v1/webhooks/deliveries/{id}': {
    summary: 'Get a webhook delivery',
    tag: 'Webhooks',
    answers: { 200: one(DeliverySchema) },
  },
  'POST /api/v1/webhooks/deliveries/{id}/retry': {
    summary: 'Retry a webhook delivery now',
    tag: 'Webhooks',
    answers: { 201: one(DeliverySchema) },
    errors: [409, 422],
  },
  'GET /api/v1/webhooks/endpoints': {
    summary: 'List webhook endpoints',
    tag: 'Webhooks',
    description: 'The endpoints not deleted, oldest first; never their secrets.',
    paged: true,
    answers: { 200: list(EndpointSchema) },
  },
  'POST /api/v1/webhooks/endpoints': {
    summary: 'Create a webhook endpoint',
    tag: 'Webhooks',
    description: 'The answer carries the signing `secret`, shown this once.',
    body: CreateEndpointInput,
    example: { url: 'https://hooks.example.com/lms', events: ['enrollment.completed'] },
    answers: { 201: one(EndpointWithSecretSchema) },
  },
  'GET /api/v1/webhooks/endpoints/{id}': {
    summary: 'Get a webhook endpoint',
    tag: 'Webhooks',
    answers: { 200: one(EndpointSchema) },
  },
  'PATCH /api/v1/webhooks/endpoints/{id}': {
    summary: 'Change a webhook endpoint',
    tag: 'Webhooks',
    description: '`is_active: false` stops deliveries to it (pending ones fail as `endpoint_inactive`).',
    body: UpdateEndpointInput,
    example: { is_active: false },
    answers: { 200: one(EndpointSchema) },
    errors: [409],
  },
  'DELETE /api/v1/webhooks/endpoints/{id}': {
    summary: 'Delete a webhook endpoint',
    tag: 'Webhooks',
    description: 'Delivery stops; pending deliveries fail as `endpoint_inactive`.',
    answers: { 204: empty },
  },
  'POST /api/v1/webhooks/endpoints/{id}/rotate-secret': {
    summary: 'Rotate a webhook endpoint’s signing secret',
    tag: 'Webhooks',
    description:
      'The answer carries the new `secret`, shown this once. Until the previous secret expires, each delivery’s `x-service-signature` carries a `v1=` entry by both, and its `webhook-signature` a `v1,` entry by both (current first).',
    body: RotateSecretInput,
    example: { expire_previous_in_seconds: 3600 },
    answers: { 200: one(EndpointWithSecretSchema) },
    errors: [409],
  },
  'POST /api/v1/webhooks/endpoints/{id}/replay': {
    summary: 'Replay a webhook endpoint’s events of a range',
    tag: 'Webhooks',
    description:
      'Each event created strictly between `created_after` and `created_before` (at most 30 days back) that the endpoint subscribes to, or of `events` when given (each one the endpoint subscribes to), is delivered again as a new delivery with its original envelope `id` and body, through the normal attempts, retries and delivery log. `queued` counts them. A paused endpoint answers 422.',
    body: ReplayInput,
    example: {
      created_after: '2026-11-01T00:00:00Z',
      created_before: '2026-11-02T00:00:00Z',
      events: ['enrollment.completed'],
    },
    answers: { 202: one(ReplaySchema) },
    errors: [422],
  },
  'GET /api/v1/xapi/connection': {
    summary: 'Get the record store connection',
    tag: 'Record store',
    description: 'Never the secret; 404 when no record store is connected.',
    answers: { 200: one(ConnectionSchema) },
    errors: [404],
  },
  'PUT /api/v1/xapi/connection': {
    summary: 'Connect or update the record store',
    tag: 'Record store',
    description:
      'An https public endpoint; `key` and `secret` both on the first save, afterwards a blank or absent one keeps the saved one.',
    body: ConnectionInput,
    example: {
      endpoint: 'https://lrs.example.com/xapi',
      key: 'lms',
      secret: 's3cret',
      identity_mode: 'anonymous',
    },
    answers: { 200: one(ConnectionSchema) },
  },
  'DELETE /api/v1/xapi/connection': {
    summary: 'Disconnect the record store',
    tag: 'Record store',
    description: 'Stops export and deletes the credentials.',
    answers: { 204: empty },
    errors: [404],
  },
  'POST /api/v1/xapi/connection/test': {
    summary: 'Test the record store connection',
    tag: 'Record store',
    description:
      'One read-only request to the record store; `status` is its HTTP status (null when none came).',
    answers: { 200: one(ConnectionTestSchema) },
    errors: [404],
  },

  'GET /api/v1/lti/login': {
    summary: 'LTI 1.3 login initiation',
    tag: 'LTI',
    description: "The platform's OIDC third-party login: redirects to the platform's authorization endpoint.",
    answers: { 302: redirect },
    // 400: a required login parameter (iss, login_hint, target_link_uri) is missing.
    errors: [400],
  },
  'POST /api/v1/lti/login': {
    summary: 'LTI 1.3 login initiation (form post)',
    tag: 'LTI',
    answers: { 302: redirect },
    errors: [400],
  },
  'POST /api/v1/lti/launch': {
    summary: 'LTI 1.3 resource link launch',
    tag: 'LTI',
    description: 'The platform posts the signed `id_token`; the learner is redirected to the course page.',
    answers: { 302: redirect },
    // 404: the host names no tenant (there is no login page to send the refusal to).
    errors: [404],
  },
  'POST /api/v1/lti/deep-link': {
    summary: 'LTI deep linking request',
    tag: 'LTI',
    answers: { 200: html, 302: redirect },
    errors: [404],
  },
  'GET /api/v1/lti/.well-known/jwks.json': {
    summary: "The tool's public keys",
    tag: 'LTI',
    answers: { 200: { kind: 'bare-json', schema: JwksSchema } },
  },
  // The pages answer a missing session with the sign-in page (401) and an unknown course with a
  // page (404); an unknown host with the error envelope.
  'GET /learn/{id}': {
    summary: "A learner's course page",
    tag: 'Learner pages',
    description:
      "The modules and their progress, in the learner's language (`en`, `fr-CA`), with a form per module to complete it; a learner not enrolled is told so and offered an enrol form. Never changes anything. 401: no valid session (the sign-in page); 404: no such course (or not published, to a learner not enrolled).",
    answers: { 200: html, 401: html, 404: html },
  },
  'GET /api/v1/lti/registrations': {
    summary: 'List LTI platform registrations',
    tag: 'LTI',
    paged: true,
    answers: { 200: list(LtiRegistrationSchema) },
  },
  'POST /api/v1/lti/registrations': {
    summary: 'Register an LTI 1.3 platform',
    tag: 'LTI',
    description: 'URLs must be public https (checked as the tool would fetch them).',
    body: CreateLtiRegistrationInput,
    example: {
      issuer: 'https://canvas.example.edu',
      client_id: '10000000000001',
      jwks_url: 'https://canvas.example.edu/api/lti/security/jwks',
      auth_url: 'https://canvas.example.edu/api/lti/authorize_redirect',
    },
    answers: { 201: one(LtiRegistrationSchema) },
    errors: [409],
  },
  'GET /api/v1/lti/registrations/{id}': {
    summary: 'Get an LTI platform registration',
    tag: 'LTI',
    answers: { 200: one(LtiRegistrationSchema) },
  },
  'PATCH /api/v1/lti/registrations/{id}': {
    summary: 'Change an LTI platform registration',
    tag: 'LTI',
    description: '`is_active` false refuses every launch of the platform, true lets them in again.',
    body: UpdateLtiRegistrationInput,
    answers: { 200: one(LtiRegistrationSchema) },
  },
  'DELETE /api/v1/lti/registrations/{id}': {
    summary: 'Delete an LTI platform registration and its deployments',
    tag: 'LTI',
    answers: { 204: empty },
  },
  'POST /api/v1/lti/registrations/{id}/deployments': {
    summary: "Add a platform's deployment id",
    tag: 'LTI',
    body: AddLtiDeploymentInput,
    example: { deployment_id: '1:abc', course_id: COURSE_ID },
    answers: { 201: one(LtiDeploymentSchema) },
    errors: [409],
  },
  'DELETE /api/v1/lti/registrations/{id}/deployments/{deployment_id}': {
    summary: "Remove a platform's deployment id",
    tag: 'LTI',
    answers: { 204: empty },
  },
  'POST /api/v1/lti/registration-links': {
    summary: 'Make a one-time LTI Dynamic Registration link',
    tag: 'LTI',
    description:
      'A URL for a platform administrator to paste into the platform (LTI Dynamic Registration 1.0), valid one hour and usable once.',
    answers: { 201: one(RegistrationLinkSchema) },
  },
  // The link's pages: a refusal is a page of its own (status by reason); an unknown host the envelope.
  'GET /api/v1/lti/dynamic-registration/{token}': {
    summary: 'Register with a platform (LTI Dynamic Registration)',
    tag: 'LTI',
    description:
      "Opened by the platform with `openid_configuration` and `registration_token`: the tool reads the platform's configuration, registers, stores the registration and its deployment, and answers a page that posts `org.imsglobal.lti.close` to its opener. A used or expired link answers 410.",
    query: DynamicRegistrationQuery,
    answers: { 200: html, ...Object.fromEntries(refusalStatuses.map((s) => [s, html])) },
  },
  'POST /learn/{id}': {
    summary: 'Enrol or complete a module from the course page',
    tag: 'Learner pages',
    description:
      "A form post (`application/x-www-form-urlencoded`): `csrf_token` from the page, and `module_id` to complete that module (without it, to enrol). 303 back to the page once done (completing the last required module completes the enrollment); 401: no valid session; 403: the session's CSRF token missing or wrong, nothing changed; 404: no such course, module or enrollment; 409: the enrollment takes no activity now, or the engine refused the enrolment (its code on the page).",
    answers: { 303: redirect, 401: html, 403: html, 404: html, 409: html },
  },
  'GET /catalog': {
    summary: "The learner's catalog page",
    tag: 'Learner pages',
    answers: { 200: html, 401: html },
    errors: [404],
  },
  'GET /login': {
    summary: 'The sign-in page',
    tag: 'Learner pages',
    description: 'Answered 401 when it shows a refused launch or an expired session (`error`).',
    answers: { 200: html, 401: html },
    errors: [404],
  },
}
