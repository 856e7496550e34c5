/**
 * The reports bench's learning data, generated deterministically (a seeded PRNG): courses made
 * through the courses service (three modules, a category, a language, half with certificates
 * valid 365 days; some archived, a few drafts), and enrollments over three years in their final
 * state (completed with quiz attempts and certificates, in progress, dropped, expired, queued),
 * loaded with seedEnrollments: the items the enrollment transaction writes, tallies included.
 */
import { randomUUID } from 'node:crypto'
import type { Course } from '../shared/domain/courses/course.ts'
import type {
  Enrollment,
  EnrollmentStatus,
  ModuleProgress,
  QuizAttempt,
} from '../shared/domain/enrollments/enrollment.ts'
import type { TenantContext } from '../shared/domain/tenants/tenant.ts'
import type { User } from '../shared/domain/users/user.ts'
import {
  addModule,
  archiveCourse,
  configureCourse,
  createCourse,
  updateCourse,
} from '../shared/services/courses/courses-service.ts'
import { mapLimit } from './course-fixtures.ts'
import { prng } from './seed.ts'

const DAY = 86_400_000

export interface ReportCourse {
  readonly course: Course
  readonly moduleIds: readonly string[]
  readonly validityDays: number | null
  readonly language: string
  readonly category: string
}

export const CATEGORIES = ['Safety', 'Compliance', 'Leadership', 'Product', 'Onboarding'] as const

/** `count` courses: every 20th a draft (no enrollments), every 10th archived, the rest published. */
export async function reportCourses(tenant: TenantContext, count: number): Promise<ReportCourse[]> {
  return mapLimit(
    Array.from({ length: count }, (_, i) => i),
    6,
    async (i) => {
      const title = `Report course ${String(i).padStart(3, '0')}`
      const created = await createCourse(tenant, { title, estimated_minutes: 30 + (i % 5) * 15 })
      const moduleIds: string[] = []
      for (const [j, type] of (['video', 'document', 'quiz'] as const).entries()) {
        const m = await addModule(tenant, created.id, {
          title: `Part ${j + 1}`,
          module_type: type,
          is_required: true,
        })
        moduleIds.push(m.id)
      }
      const validityDays = i % 2 === 0 ? 365 : null
      const language = i % 5 === 0 ? 'fr-CA' : 'en'
      const category = CATEGORIES[i % CATEGORIES.length] ?? 'Safety'
      await configureCourse(tenant, created.id, { category, certificateValidityDays: validityDays, language })
      let course = created
      if (i % 20 !== 19) course = await updateCourse(tenant, created.id, { status: 'published' })
      if (i % 10 === 9) await archiveCourse(tenant, created.id)
      return {
        course: { ...course, status: i % 20 === 19 ? 'draft' : i % 10 === 9 ? 'archived' : 'published' },
        moduleIds,
        validityDays,
        language,
        category,
      }
    },
  )
}

const statusWeights: readonly (readonly [EnrollmentStatus, number])[] = [
  ['completed', 40],
  ['active', 42],
  ['dropped', 8],
  ['expired', 5],
  ['waitlisted', 3],
  ['pending_approval', 2],
]

function pick<T>(rand: () => number, table: readonly (readonly [T, number])[]): T {
  let x = rand() * table.reduce((s, [, w]) => s + w, 0)
  for (const [value, w] of table) {
    x -= w
    if (x < 0) return value
  }
  return (table[table.length - 1] as readonly [T, number])[0]
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * `perUser` enrollments per user in distinct non-draft courses, enrolled after the user was
 * created and before `now`; about 3% of the enrollments fall in the last 30 days.
 */
export function makeEnrollments(
  users: readonly User[],
  courses: readonly ReportCourse[],
  perUser: number,
  now: number,
  seed = 7,
): Enrollment[] {
  const rand = prng(seed)
  const open = courses.filter((c) => c.course.status !== 'draft')
  const out: Enrollment[] = []
  for (const user of users) {
    const chosen = new Set<number>()
    while (chosen.size < Math.min(perUser, open.length)) chosen.add(Math.floor(rand() * open.length))
    for (const index of chosen) {
      const c = open[index] as ReportCourse
      const from = Date.parse(user.createdAt)
      const enrolled = from + rand() * Math.max(DAY, now - DAY - from)
      let status = pick(rand, statusWeights)
      const queued = status === 'waitlisted' || status === 'pending_approval'
      const started = queued || (status !== 'completed' && rand() < 0.3) ? null : enrolled + rand() * 14 * DAY
      if (started === null && status === 'completed') status = 'active'
      const startedAt = started === null ? null : Math.min(started, now - 60_000)
      const completed =
        status === 'completed' && startedAt !== null
          ? Math.min(startedAt + 3_600_000 + rand() * 60 * DAY, now - 60_000)
          : null
      const attempts: QuizAttempt[] = []
      const quizModule = c.moduleIds[2] ?? ''
      if (startedAt !== null && (completed !== null || rand() < 0.3)) {
        const n = 1 + Math.floor(rand() * 3)
        for (let k = 0; k < n; k++) {
          const scaled = Math.round((0.4 + rand() * 0.6) * 100) / 100
          attempts.push({
            moduleId: quizModule,
            raw: Math.round(scaled * 20),
            max: 20,
            scaled,
            passed: scaled >= 0.7,
            gradedAt: iso((completed ?? startedAt) - (n - k) * 600_000),
          })
        }
      }
      const spent = startedAt === null ? 0 : Math.round(300 + rand() * 7200)
      const lastActivity =
        startedAt === null ? null : (completed ?? Math.min(startedAt + rand() * 30 * DAY, now - 60_000))
      const modules: Record<string, ModuleProgress> = {}
      if (startedAt !== null) {
        c.moduleIds.forEach((id, k) => {
          const done = completed !== null || rand() < 0.4
          modules[id] = {
            status: done ? 'completed' : k === 0 ? 'in_progress' : 'not_started',
            score:
              id === quizModule && attempts.length > 0
                ? Math.round((attempts.at(-1)?.scaled ?? 0) * 100)
                : null,
            timeSpentSeconds: Math.round(spent / 3),
            startedAt: iso(startedAt),
            completedAt: done ? iso(completed ?? lastActivity ?? startedAt) : null,
            lastActivityAt: iso(lastActivity ?? startedAt),
          }
        })
      }
      const bestPassed = attempts.some((a) => a.passed)
      const certified = completed !== null && c.validityDays !== null
      out.push({
        id: randomUUID(),
        userId: user.id,
        courseId: c.course.id,
        status,
        dueDate: rand() < 0.3 ? iso(enrolled + 30 * DAY) : null,
        completedAt: completed === null ? null : iso(completed),
        source: 'native',
        channel: 'api',
        createdAt: iso(enrolled),
        enrolledAt: iso(enrolled),
        startedAt: startedAt === null ? null : iso(startedAt),
        updatedAt: iso(lastActivity ?? enrolled),
        progressPercent:
          completed !== null
            ? 100
            : Math.round((Object.values(modules).filter((m) => m.status === 'completed').length / 3) * 100),
        score: modules[quizModule]?.score ?? null,
        passFail: attempts.length === 0 ? null : bestPassed ? 'pass' : 'fail',
        certificateId: certified ? randomUUID() : null,
        certificateNumber: certified ? `CERT-${out.length}` : null,
        certificateExpiresAt:
          certified && completed !== null ? iso(completed + (c.validityDays ?? 0) * DAY) : null,
        language: c.language,
        timeSpentSeconds: spent,
        lastActivityAt: lastActivity === null ? null : iso(lastActivity),
        holdsSeat: false,
        accessExpiresAt: null,
        modules,
        quizAttempts: attempts,
        scoresLinked: false,
      })
    }
  }
  return out
}

/** Users as makeUsers gives them, but with half the active ones signed in during the last 60 days. */
export function withRecentSignIns(users: readonly User[], now: number, seed = 11): User[] {
  const rand = prng(seed)
  return users.map((u) => {
    const recent = u.isActive && rand() < 0.5
    return recent ? { ...u, lastLoginAt: iso(now - rand() * 60 * DAY) } : u
  })
}
