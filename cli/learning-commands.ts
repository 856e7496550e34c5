/** `lms course|category|learner|completion ...`: courses, their settings, and what a learner does. */
import { readFile } from 'node:fs/promises'
import { toCourseResource, toCourseSettings, toModuleResource } from '../functions/courses/representation.ts'
import { toEnrollmentResource, toProgress } from '../functions/enrollments/representation.ts'
import { CreateCourseInput, type CourseSettings, type SkillGrant } from '../shared/domain/courses/course.ts'
import { skillLevels, type SkillLevel } from '../shared/domain/skills/skill.ts'
import { AppModuleInput } from '../shared/domain/courses/module.ts'
import { parseOrThrow } from '../shared/domain/validation.ts'
import * as courses from '../shared/services/courses/courses-service.ts'
import * as packages from '../shared/services/courses/packages-service.ts'
import * as enrollments from '../shared/services/enrollments/enrollments-service.ts'
import * as learner from '../shared/services/enrollments/learner-service.ts'
import { onOff, required, UsageError } from './args.ts'
import {
  at,
  command,
  number,
  optionalInt,
  optionalNumber,
  optionalTimestamp,
  tenantOf,
  type Command,
  type Flags,
} from './flags.ts'

/** `--grants-skill ID --grants-level L` (both), or `--grants-skill none` to stop granting. */
function skillGrantFrom(f: Flags): SkillGrant | null | undefined {
  const skillId = f.get('grants-skill')
  if (skillId === undefined) {
    if (f.has('grants-level')) throw new UsageError('--grants-level needs --grants-skill')
    return undefined
  }
  if (skillId === 'none') return null
  const level = required(f, 'grants-level')
  if (!(skillLevels as readonly string[]).includes(level)) {
    throw new UsageError(`--grants-level takes ${skillLevels.join('|')}`)
  }
  return { skillId, level: level as SkillLevel }
}

function settingsFrom(f: Flags): Partial<CourseSettings> & { category?: string } {
  const out: Partial<Record<keyof CourseSettings, unknown>> & { category?: string } = {
    requiresApproval: onOff(f, 'requires-approval'),
    seatLimit: optionalInt(f, 'seat-limit'),
    waitlist: onOff(f, 'waitlist'),
    enrollmentOpensAt: optionalTimestamp(f, 'enrollment-opens-at'),
    enrollmentClosesAt: optionalTimestamp(f, 'enrollment-closes-at'),
    prerequisites: f.has('prerequisites')
      ? (f.get('prerequisites') ?? '')
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x && x !== 'none' && x !== 'true')
      : undefined,
    language: f.get('language'),
    certificateValidityDays: optionalInt(f, 'certificate-validity-days'),
    ceu: optionalNumber(f, 'ceu'),
    requiresSessionSelection: onOff(f, 'requires-session-selection'),
    accessDays: optionalInt(f, 'access-days'),
    grantsSkill: skillGrantFrom(f),
    category: f.get('category'),
  }
  return Object.fromEntries(
    Object.entries(out).filter(([, v]) => v !== undefined),
  ) as Partial<CourseSettings> & {
    category?: string
  }
}

export const courseCommands: Record<string, Command> = {
  'course create': command(
    '--tenant S --title T [--description D] [--no-version] [--at ISO]',
    'create a course',
    async (f) => {
      const tenant = await tenantOf(f)
      const input = parseOrThrow(CreateCourseInput, {
        title: required(f, 'title'),
        description: f.get('description') ?? null,
      })
      const course = await courses.createCourse(tenant, input, { withVersion: !f.has('no-version') }, at(f))
      return toCourseResource(course)
    },
  ),
  'course add-module': command(
    '--tenant S --course ID --title T --module-type TYPE [--description D] [--optional] [--at ISO]',
    'add a module to a course',
    async (f) => {
      const input = parseOrThrow(AppModuleInput, {
        title: f.get('title'),
        module_type: f.get('module-type'),
        ...(f.has('description') ? { description: f.get('description') } : {}),
        ...(f.has('optional') ? { is_required: false } : {}),
      })
      return toModuleResource(await courses.addModule(await tenantOf(f), required(f, 'course'), input, at(f)))
    },
  ),
  'course upload-package': command(
    '--tenant S --course ID --module ID --file PATH.zip',
    "store a module's package (a ZIP), as the app's upload does",
    async (f) => {
      const file = required(f, 'file')
      let bytes: Buffer
      try {
        bytes = await readFile(file)
      } catch {
        throw new UsageError(`--file ${file} cannot be read`)
      }
      const tenant = await tenantOf(f)
      const stored = await packages.uploadModulePackage(
        tenant,
        required(f, 'course'),
        required(f, 'module'),
        bytes,
      )
      return { module_id: stored.moduleId, bytes: stored.bytes }
    },
  ),
  'course configure': command(
    '--tenant S --course ID [--requires-approval on|off] [--seat-limit N|none] [--waitlist on|off] [--enrollment-opens-at ISO|none] [--enrollment-closes-at ISO|none] [--prerequisites ID,ID] [--category NAME] [--language L] [--certificate-validity-days N|none] [--ceu N] [--requires-session-selection on|off] [--access-days N|none] [--grants-skill ID|none --grants-level L]',
    'the course settings the API does not expose',
    async (f) => {
      const tenant = await tenantOf(f)
      const course = await courses.configureCourse(tenant, required(f, 'course'), settingsFrom(f))
      const category = await courses.categoryOf(tenant, course)
      return toCourseSettings(course, category?.name ?? null)
    },
  ),
  'category create': command('--tenant S --name N', 'create a course category', async (f) =>
    courses.ensureCategory(await tenantOf(f), required(f, 'name')),
  ),
  'course publish': command(
    '--tenant S --course ID [--at ISO]',
    "publish a course (within the plan's course cap)",
    async (f) =>
      toCourseResource(
        await courses.updateCourse(await tenantOf(f), required(f, 'course'), { status: 'published' }, at(f)),
      ),
  ),
  'course archive': command('--tenant S --course ID [--at ISO]', 'archive a course', async (f) =>
    toCourseResource(
      await courses.updateCourse(await tenantOf(f), required(f, 'course'), { status: 'archived' }, at(f)),
    ),
  ),
}

const activity =
  (kind: 'start' | 'progress' | 'complete'): Command['run'] =>
  async (f) =>
    toProgress(
      await learner.recordActivity(await tenantOf(f), required(f, 'enrollment'), {
        moduleId: required(f, 'module'),
        kind,
        score: number(f, 'score') ?? null,
        ...(kind === 'complete' ? passedFlag(f) : {}),
        timeSpentSeconds: number(f, 'time-spent'),
        at: at(f),
      }),
    )

/** `--passed true|false`: the pass/fail a package reported with its completion. */
function passedFlag(f: ReadonlyMap<string, string>): { passed?: boolean } {
  const passed = onOff(f, 'passed')
  return passed === undefined ? {} : { passed }
}

export const learnerCommands: Record<string, Command> = {
  'learner enroll': command(
    '--tenant S --user ID --course ID [--due-date ISO]',
    'self-enrollment, as in the app',
    async (f) =>
      toEnrollmentResource(
        await enrollments.createEnrollment(
          await tenantOf(f),
          {
            userId: required(f, 'user'),
            courseId: required(f, 'course'),
            dueDate: optionalTimestamp(f, 'due-date') ?? null,
          },
          'app',
        ),
      ),
  ),
  'learner start-module': command(
    '--tenant S --enrollment ID --module ID [--score N] [--passed true|false] [--time-spent SECONDS] [--at ISO]',
    'record a module started',
    activity('start'),
  ),
  'learner progress-module': command(
    '--tenant S --enrollment ID --module ID [--score N] [--passed true|false] [--time-spent SECONDS] [--at ISO]',
    'record progress in a module',
    activity('progress'),
  ),
  'learner complete-module': command(
    '--tenant S --enrollment ID --module ID [--score N] [--passed true|false] [--time-spent SECONDS] [--at ISO]',
    'record a module completed',
    activity('complete'),
  ),
  'learner cmi5-statement': command(
    '--tenant S --enrollment ID --module ID --statement JSON [--at ISO]',
    "forward a launched cmi5 unit's statement to the record store",
    async (f) => {
      const sent = await learner.forwardUnitStatement(
        await tenantOf(f),
        required(f, 'enrollment'),
        required(f, 'module'),
        required(f, 'statement'),
        at(f),
      )
      return { statement_id: sent.statementId }
    },
  ),
  'learner download': command(
    '--tenant S --enrollment ID --module ID [--at ISO]',
    "a 15-minute pre-signed download link of a module's package",
    async (f) => {
      const download = await learner.recordDownload(
        await tenantOf(f),
        required(f, 'enrollment'),
        required(f, 'module'),
        at(f),
      )
      return {
        download_url: download.url,
        expires_at: download.expiresAt,
        progress: toProgress(download.progress),
      }
    },
  ),
  'learner quiz-attempt': command(
    '--tenant S --enrollment ID --module ID --score N [--max N] [--passing-score PERCENT] [--time-spent SECONDS] [--at ISO]',
    'record a graded attempt',
    async (f) => {
      const passing = number(f, 'passing-score')
      const { attempt, progress } = await learner.gradeQuizAttempt(
        await tenantOf(f),
        required(f, 'enrollment'),
        {
          moduleId: required(f, 'module'),
          raw: number(f, 'score') ?? Number.NaN,
          max: number(f, 'max', 100) ?? 100,
          passingScaled: passing === undefined ? undefined : passing / 100,
          timeSpentSeconds: number(f, 'time-spent'),
          at: at(f),
        },
      )
      return {
        attempt: {
          raw: attempt.raw,
          max: attempt.max,
          scaled: attempt.scaled,
          passed: attempt.passed,
          graded_at: attempt.gradedAt,
        },
        progress: toProgress(progress),
      }
    },
  ),
  'completion import': command(
    '--tenant S --user ID --course ID --completed-at ISO [--score N]',
    'import a historical completion',
    async (f) => {
      const completedAt = optionalTimestamp(f, 'completed-at')
      if (!completedAt) throw new UsageError('--completed-at is required (ISO 8601)')
      return toEnrollmentResource(
        await learner.importCompletion(await tenantOf(f), {
          userId: required(f, 'user'),
          courseId: required(f, 'course'),
          completedAt,
          score: number(f, 'score') ?? null,
        }),
      )
    },
  ),
}
