/**
 * The only place that composes table keys. Tenant-owned items live in the tenant's partition
 * (`T#<tenantId>`), so a lookup with another tenant's id finds nothing. The few global items
 * (slug → tenant, key hash → key, rate windows) are addressed by values only their owner holds.
 */
import { createHash } from 'node:crypto'
import type { TenantContext } from '../../domain/tenants/tenant.ts'

export interface Key {
  readonly pk: string
  readonly sk: string
}

/** Values a key is built from but which may hold any character (URLs, platform ids): hashed. */
const h = (...parts: readonly string[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 40)

const tp = (tenant: Pick<TenantContext, 'id'>): string => `T#${tenant.id}`

export const keys = {
  tenantBySlug: (slug: string): Key => ({ pk: `TENANT#${slug}`, sk: 'TENANT' }),
  /** The copy of a tenant read by id (workers get ids; decision 0028). */
  tenantById: (tenantId: string): Key => ({ pk: `TENANTID#${tenantId}`, sk: 'TENANT' }),
  apiKeyByHash: (hash: string): Key => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' }),
  rateWindow: (keyId: string, windowStart: number): Key => ({ pk: `RL#${keyId}#${windowStart}`, sk: 'RL' }),
  /** Per client address on keyless routes: the address is kept only as a hash. */
  ipWindow: (route: string, ipHash: string, windowStart: number): Key => ({
    pk: `RLIP#${route}#${ipHash}#${windowStart}`,
    sk: 'RL',
  }),
  /** Contact requests belong to no tenant: the product's own partition, newest last. */
  contactRequest: (createdAt: string, id: string): Key => ({
    pk: 'PLATFORM#CONTACT',
    sk: `CONTACT#${createdAt}#${id}`,
  }),
  contactPartition: 'PLATFORM#CONTACT',
  contactRequestPrefix: 'CONTACT#',
  /** A contact request's notification to the operators: its outbox item, next to the request. */
  contactOutbox: (createdAt: string, id: string): Key => ({
    pk: 'PLATFORM#CONTACT',
    sk: `OUTBOX#${createdAt}#${id}`,
  }),
  /** Every tenant, one item each in the product's own partition: what the scheduled jobs go through. */
  tenantRegistry: (tenantId: string): Key => ({ pk: 'PLATFORM#TENANTS', sk: `TENANT#${tenantId}` }),
  tenantRegistryPartition: 'PLATFORM#TENANTS',

  /**
   * One item per migration (shared/store/migrations/): its state, cursor, counts and run lease; a
   * run scoped to one tenant (`lms migrate run --tenant`) has its own.
   */
  migration: (migrationId: string, tenantId?: string): Key => ({
    pk: 'PLATFORM#MIGRATIONS',
    sk: tenantId === undefined ? `MIGRATION#${migrationId}` : `MIGRATION#${migrationId}#TENANT#${tenantId}`,
  }),
  migrationsPartition: 'PLATFORM#MIGRATIONS',

  tenantPartition: tp,
  counters: (t: TenantContext): Key => ({ pk: tp(t), sk: 'COUNTERS' }),
  /** The stored size of a module's package: what the tenant's storage counter holds for it. */
  packageSize: (t: TenantContext, moduleId: string): Key => ({ pk: tp(t), sk: `PKGSIZE#${moduleId}` }),
  monthlyUsage: (t: TenantContext, month: string): Key => ({ pk: tp(t), sk: `USAGE#${month}` }),
  /** Written once per month and threshold: the usage alert it guards is recorded once. */
  usageAlert: (t: TenantContext, month: string, percent: number): Key => ({
    pk: tp(t),
    sk: `USAGEALERT#${month}#${percent}`,
  }),
  /** A keyed POST's Idempotency-Key (printable ASCII, checked before): its record and kept answer. */
  idempotencyRecord: (t: TenantContext, key: string): Key => ({ pk: tp(t), sk: `IDEM#${key}` }),
  apiKeyRef: (t: TenantContext, keyId: string): Key => ({ pk: tp(t), sk: `APIKEYREF#${keyId}` }),
  apiKeyRefPrefix: 'APIKEYREF#',

  user: (t: TenantContext, userId: string): Key => ({ pk: tp(t), sk: `USER#${userId}` }),
  /** The user item and its group edges share this prefix, so one Query reads both. */
  userWithEdgesPrefix: (userId: string): string => `USER#${userId}`,
  userEmail: (t: TenantContext, emailLower: string): Key => ({ pk: tp(t), sk: `EMAIL#${emailLower}` }),
  usersIndexPk: (t: TenantContext): string => `${tp(t)}#USERS`,
  usersByCreated: (createdAt: string, userId: string): string => `${createdAt}#${userId}`,
  usersByLastName: (lastName: string, userId: string): string => `${lastName.toLowerCase()}#${userId}`,
  usersByEmail: (emailLower: string, userId: string): string => `${emailLower}#${userId}`,

  group: (t: TenantContext, groupId: string): Key => ({ pk: tp(t), sk: `GROUP#${groupId}` }),
  groupPrefix: 'GROUP#',
  groupName: (t: TenantContext, nameLower: string): Key => ({ pk: tp(t), sk: `GROUPNAME#${nameLower}` }),
  groupMember: (t: TenantContext, groupId: string, userId: string): Key => ({
    pk: tp(t),
    sk: `GMEMBER#${groupId}#${userId}`,
  }),
  groupMemberPrefix: (groupId: string): string => `GMEMBER#${groupId}#`,
  userGroupEdge: (t: TenantContext, userId: string, groupId: string): Key => ({
    pk: tp(t),
    sk: `USER#${userId}#GROUP#${groupId}`,
  }),

  customField: (t: TenantContext, key: string): Key => ({ pk: tp(t), sk: `CFIELD#${key}` }),
  customFieldPrefix: 'CFIELD#',
  customRole: (t: TenantContext, roleId: string): Key => ({ pk: tp(t), sk: `CROLE#${roleId}` }),

  course: (t: TenantContext, courseId: string): Key => ({ pk: tp(t), sk: `COURSE#${courseId}` }),
  courseVersion: (t: TenantContext, courseId: string, versionId: string): Key => ({
    pk: tp(t),
    sk: `COURSEVER#${courseId}#${versionId}`,
  }),
  coursesIndexPk: (t: TenantContext): string => `${tp(t)}#COURSES`,
  /** Zero-padded so the partition's sort order is the display order. */
  module: (t: TenantContext, courseId: string, orderIndex: number): Key => ({
    pk: tp(t),
    sk: `MODULE#${courseId}#${String(orderIndex).padStart(6, '0')}`,
  }),
  modulePrefix: (courseId: string): string => `MODULE#${courseId}#`,
  category: (t: TenantContext, categoryId: string): Key => ({ pk: tp(t), sk: `CATEGORY#${categoryId}` }),
  categoryName: (t: TenantContext, nameLower: string): Key => ({
    pk: tp(t),
    sk: `CATEGORYNAME#${nameLower}`,
  }),
  /** Sort keys of lists: id-suffixed so equal values keep a stable order. */
  sortKey: (value: string, id: string): string => `${value}#${id}`,

  enrollment: (t: TenantContext, enrollmentId: string): Key => ({ pk: tp(t), sk: `ENROLL#${enrollmentId}` }),
  /** One per user and course: the uniqueness guard of live enrollments, and the prerequisite check. */
  enrollmentPair: (t: TenantContext, userId: string, courseId: string): Key => ({
    pk: tp(t),
    sk: `ENRPAIR#${userId}#${courseId}`,
  }),
  enrollmentsIndexPk: (t: TenantContext): string => `${tp(t)}#ENROLLMENTS`,
  userEnrollmentsPk: (t: TenantContext, userId: string): string => `${tp(t)}#UENR#${userId}`,
  courseEnrollmentsPk: (t: TenantContext, courseId: string): string => `${tp(t)}#CENR#${courseId}`,
  /** gsi1 of pair items while active with an end of access: the tenant's access ends, soonest first. */
  accessExpiryIndexPk: (t: TenantContext): string => `${tp(t)}#ACCESSEXPIRY`,
  /** gsi2 of pair items while waitlisted: the course's waitlist, oldest first. */
  waitlistIndexPk: (t: TenantContext, courseId: string): string => `${tp(t)}#WAITLIST#${courseId}`,
  /**
   * A promoter's short claim on one waitlist place (`<since>#<enrollment id>`, so a learner
   * waitlisted again has a new place): racing promoters skip a claimed place instead of all
   * writing the course item for it (shared/store/enrollments/promotion-claims.ts).
   */
  promotionClaim: (t: TenantContext, place: string): Key => ({ pk: tp(t), sk: `PROMOTING#${place}` }),
  certificate: (t: TenantContext, certificateId: string): Key => ({ pk: tp(t), sk: `CERT#${certificateId}` }),
  /** The most urgent expiry notice sent for a certificate (30, 7 or 0 days before; decision 0047). */
  certificateNotice: (t: TenantContext, certificateId: string): Key => ({
    pk: tp(t),
    sk: `CERTNOTICE#${certificateId}`,
  }),
  /** Sorts after every timestamp: a missing date is last ascending, first descending. */
  missingDate: '~',

  webhookEndpoint: (t: TenantContext, endpointId: string): Key => ({
    pk: tp(t),
    sk: `WEBHOOK#${endpointId}`,
  }),
  webhookEndpointPrefix: 'WEBHOOK#',
  webhookDelivery: (t: TenantContext, deliveryId: string): Key => ({
    pk: tp(t),
    sk: `WHDELIVERY#${deliveryId}`,
  }),
  webhookDeliveryPrefix: 'WHDELIVERY#',
  /** gsi1 of deliveries: the tenant's deliveries by creation time (the deliveries view). */
  webhookDeliveriesIndexPk: (t: TenantContext): string => `${tp(t)}#WHDELIVERIES`,
  webhookDeliveriesByCreated: (createdAt: string, deliveryId: string): string => `${createdAt}#${deliveryId}`,
  /** The tenant's one record-store (LRS) connection; deleting it stops statement export. */
  lrsConnection: (t: Pick<TenantContext, 'id'>): Key => ({ pk: tp(t), sk: 'LRS#CONNECTION' }),
  /** A statement's delivery-log row, addressed by the statement id (fixed per source event). */
  xapiStatement: (t: TenantContext, statementId: string): Key => ({
    pk: tp(t),
    sk: `XAPISTMT#${statementId}`,
  }),
  xapiStatementPrefix: 'XAPISTMT#',
  /** Where the local stream relay resumes a shard after a restart (Lambda keeps its own). */
  relayCheckpoint: (shardId: string): Key => ({ pk: 'RELAY#CHECKPOINT', sk: shardId }),

  /** LTI 1.3 (docs/decisions/0020-lti.md): registrations, their lookup by issuer and client id. */
  ltiRegistration: (t: TenantContext, id: string): Key => ({ pk: tp(t), sk: `LTIREG#${id}` }),
  ltiRegistrationPrefix: 'LTIREG#',
  /** One per (issuer, client id): the uniqueness guard, and a Query by issuer reads every client. */
  ltiClient: (t: TenantContext, issuer: string, clientId: string): Key => ({
    pk: tp(t),
    sk: `LTIISS#${h(issuer)}#${h(clientId)}`,
  }),
  ltiIssuerPrefix: (issuer: string): string => `LTIISS#${h(issuer)}#`,
  ltiDeployment: (t: TenantContext, registrationId: string, deploymentId: string): Key => ({
    pk: tp(t),
    sk: `LTIDEP#${registrationId}#${h(deploymentId)}`,
  }),
  ltiDeploymentsOfPrefix: (registrationId: string): string => `LTIDEP#${registrationId}#`,
  /** A one-time Dynamic Registration link (decision 0051): keyed by its token's hash, the token never stored. */
  ltiRegistrationLink: (t: TenantContext, token: string): Key => ({
    pk: tp(t),
    sk: `LTIREGLINK#${h(token)}`,
  }),
  /** A login's state and nonce, deleted by the one launch that uses them (TTL clears the rest). */
  ltiLoginState: (t: TenantContext, state: string): Key => ({ pk: tp(t), sk: `LTISTATE#${state}` }),
  /** The link from a platform user (issuer, sub) to the tenant's user. */
  ltiIdentity: (t: TenantContext, issuer: string, sub: string): Key => ({
    pk: tp(t),
    sk: `LTISUB#${h(issuer, sub)}`,
  }),
  /** The last NRPS service an Instructor launch offered for a platform context (decision 0052). */
  ltiMembershipService: (t: TenantContext, registrationId: string, contextId: string): Key => ({
    pk: tp(t),
    sk: `LTINRPS#${registrationId}#${h(contextId)}`,
  }),
  ltiMembershipServicesOfPrefix: (registrationId: string): string => `LTINRPS#${registrationId}#`,
  /** The tool's signing keys of the tenant: `next` (published), `current` (signs), `retired`. */
  ltiToolKey: (t: TenantContext, kid: string): Key => ({ pk: tp(t), sk: `LTIKEY#${kid}` }),
  ltiToolKeyPrefix: 'LTIKEY#',
  /** Which tool key signs, which is published next, which retired keys stay published. */
  ltiKeyRing: (t: TenantContext): Key => ({ pk: tp(t), sk: 'LTIKEYRING' }),
  /** The AGS line item an enrollment's launch named, where its scores go (decision 0050). */
  ltiAgsLink: (t: TenantContext, enrollmentId: string): Key => ({ pk: tp(t), sk: `LTIAGS#${enrollmentId}` }),
  skillDomain: (t: TenantContext, id: string): Key => ({ pk: tp(t), sk: `SKILLDOMAIN#${id}` }),
  skillDomainPrefix: 'SKILLDOMAIN#',
  skill: (t: TenantContext, id: string): Key => ({ pk: tp(t), sk: `SKILL#${id}` }),
  skillPrefix: 'SKILL#',
  /** A person's held skill; the person's are one Query on their prefix, the tenant's one on `USKILL#`. */
  heldSkill: (t: TenantContext, userId: string, skillId: string): Key => ({
    pk: tp(t),
    sk: `USKILL#${userId}#${skillId}`,
  }),
  heldSkillPrefix: 'USKILL#',
  heldSkillsOfUserPrefix: (userId: string): string => `USKILL#${userId}#`,
  /** A person's skills summary (roles held, levels held): what the matrix's status filter reads. */
  skillSummary: (t: TenantContext, userId: string): Key => ({ pk: tp(t), sk: `USKILLSUM#${userId}` }),
  skillSummaryPrefix: 'USKILLSUM#',
  jobRole: (t: TenantContext, id: string): Key => ({ pk: tp(t), sk: `JOBROLE#${id}` }),
  jobRolePrefix: 'JOBROLE#',
  jobRoleName: (t: TenantContext, nameLower: string): Key => ({ pk: tp(t), sk: `JOBROLENAME#${nameLower}` }),
  /** A person's hold on a role (every source in one item); gsi4 lists a role's holders. */
  roleHolding: (t: TenantContext, userId: string, roleId: string): Key => ({
    pk: tp(t),
    sk: `UROLE#${userId}#${roleId}`,
  }),
  roleHoldingPrefix: 'UROLE#',
  roleHoldingsOfUserPrefix: (userId: string): string => `UROLE#${userId}#`,
  roleHoldersIndexPk: (t: TenantContext, roleId: string): string => `${tp(t)}#ROLEHOLDERS#${roleId}`,

  auditRecord: (t: TenantContext, at: string, id: string): Key => ({ pk: tp(t), sk: `AUDIT#${at}#${id}` }),
  auditPrefix: 'AUDIT#',

  /** Reports (docs/decisions/0018): a course's tally, moved in every enrollment write's transaction. */
  courseReport: (t: TenantContext, courseId: string): Key => ({ pk: tp(t), sk: `RPTCOURSE#${courseId}` }),
  /** rpt1: assigned enrollments by certificate expiry (compliance). */
  assignmentsIndexPk: (t: TenantContext): string => `${tp(t)}#ASSIGN`,
  /** Compliance histogram (decision 0023): assignments by certificate expiry day, a month an item. */
  expiryMonth: (t: TenantContext, month: string): Key => ({ pk: tp(t), sk: `RPTEXPIRY#${month}` }),
  /** A user's latest activity (decision 0024), and the tenant's users by the day of theirs. */
  activityLatest: (t: TenantContext, userId: string): Key => ({ pk: tp(t), sk: `UACT#${userId}` }),
  activityLatestMonth: (t: TenantContext, month: string): Key => ({ pk: tp(t), sk: `RPTACT#${month}` }),
  /** One user's activity entries (act2): their enrollments with activity and their own entry. */
  userActivityIndexPk: (t: TenantContext, userId: string): string => `${tp(t)}#ACT#${userId}`,
  /** Enrollments by enrollment hour and status, completions by completion hour (decision 0026). */
  rangeHours: (t: TenantContext, kind: string, day: string): Key => ({
    pk: tp(t),
    sk: `RPTHOUR#${kind}#${day}`,
  }),
  /** A replaced enrollment's activity, kept as history (decision 0024). */
  activityHistory: (t: TenantContext, enrollmentId: string, replacedAt: string): Key => ({
    pk: tp(t),
    sk: `ACTH#${enrollmentId}#${replacedAt}`,
  }),
  /** A course's tally of the enrollments created on one UTC day (decision 0023: performance by period). */
  courseDayReport: (t: TenantContext, courseId: string, day: string): Key => ({
    pk: tp(t),
    sk: `RPTCDAY#${courseId}#${day}`,
  }),
  /** rpt4: a course's enrollments by creation time (the partial days of a performance period). */
  courseCreatedIndexPk: (t: TenantContext, courseId: string): string => `${tp(t)}#CCREATED#${courseId}`,
  /** rpt5: a course's completions by completion time (decision 0025). */
  courseCompletionsIndexPk: (t: TenantContext, courseId: string): string => `${tp(t)}#CCOMPL#${courseId}`,
  /** rpt6: a course's assignments in rpt1's order (decision 0025). */
  courseAssignmentsIndexPk: (t: TenantContext, courseId: string): string => `${tp(t)}#CASSIGN#${courseId}`,
  /** rpt7: the tenant's enrollments of one status by enrollment time (decision 0025). */
  statusEnrollmentsIndexPk: (t: TenantContext, status: string): string => `${tp(t)}#ESTATUS#${status}`,
  /** rpt3: completions by score (completions report, sort_by=score). */
  scoresIndexPk: (t: TenantContext): string => `${tp(t)}#SCORES`,
  /** Before every timestamp: an assignment without a completion sorts first. */
  noCompletion: '!',
  exportJob: (t: TenantContext, jobId: string): Key => ({ pk: tp(t), sk: `EXPORT#${jobId}` }),
  /** gsi1 partition of the claimed export jobs of every tenant, by lease (shared/store/files/export-leases.ts). */
  exportLeasesPk: 'EXPORT#LEASES',

  outboxPrefix: 'OUTBOX#',
  /** gsi1 partition of outbox events not yet relayed (sparse: relaying removes them from it). */
  pendingOutboxPk: 'OUTBOX#PENDING',
  /** gsi1 partition of outbox notifications not yet relayed to the notifications queue. */
  pendingNotificationsPk: 'OUTBOX#PENDING#MAIL',
  /**
   * One per notification and recipient, in the notification's partition: the claim that makes a
   * redelivered message send nothing twice (shared/store/deliveries/mail-store.ts).
   */
  mailMarker: (partition: string, notificationId: string, recipientKey: string): Key => ({
    pk: partition,
    sk: `MAILSENT#${notificationId}#${recipientKey}`,
  }),
  /** The local mail sink (`lms mail list`): what would have been sent, newest last. */
  mailSinkPartition: 'MAILSINK',
  mailSink: (sentAt: string, id: string): Key => ({ pk: 'MAILSINK', sk: `MAIL#${sentAt}#${id}` }),
  /**
   * The events API's sparse indexes over outbox items of public events (event-index.ts): gsi2 all
   * of the tenant's by time, gsi3 one type's by time, gsi4 one event by its id.
   */
  eventsIndexPk: (t: Pick<TenantContext, 'id'>): string => `${tp(t)}#EVENTS`,
  eventTypeIndexPk: (t: Pick<TenantContext, 'id'>, type: string): string => `${tp(t)}#EVENTS#${type}`,
  eventIdIndexPk: (t: Pick<TenantContext, 'id'>, eventId: string): string => `${tp(t)}#EVENT#${eventId}`,
  /** The counters of a tenant's catalog events of one type ('*': all types), by day, hour and minute (event-counters.ts). */
  eventCountPk: (t: Pick<TenantContext, 'id'>, type: string): string => `${tp(t)}#EVCOUNT#${type}`,
  outboxEvent: (t: Pick<TenantContext, 'id'>, createdAt: string, eventId: string): Key => ({
    pk: tp(t),
    sk: `OUTBOX#${createdAt}#${eventId}`,
  }),
} as const

/**
 * The table's GSIs, overloaded by entity (see docs/data-model.md): each entity's store names what
 * each index means for it (users: created / last name / e-mail; courses: created / title / updated).
 */
export const indexes = {
  gsi1: indexNamed('gsi1'),
  gsi2: indexNamed('gsi2'),
  gsi3: indexNamed('gsi3'),
  gsi4: indexNamed('gsi4'),
  gsi5: indexNamed('gsi5'),
} as const

export const allIndexes = Object.values(indexes)

/** An index whose key attributes are named after it (`<name>pk`, `<name>sk`). */
export function indexNamed<N extends string>(name: N) {
  return { name, pk: `${name}pk`, sk: `${name}sk` } as const
}

export const TTL_ATTRIBUTE = 'ttl'
