/**
 * The demo tenant's sample data (first start only, unless LMS_DEMO_DATA=off): people in groups,
 * published courses with modules, enrollments in every status, completions with certificates, and
 * a job role with skills. Everything goes through the services the API and the CLI use, so events,
 * counters, report keys and certificates are what real use would have written. Names are fixed;
 * times are placed relative to the start (a completion 10 days ago, an access that ended).
 */
import { operator } from '../shared/domain/actor.ts'
import type { AppModuleInput } from '../shared/domain/courses/module.ts'
import type { CourseSettings } from '../shared/domain/courses/course.ts'
import type { Tenant } from '../shared/domain/tenants/tenant.ts'
import {
  addModule,
  configureCourse,
  createCourse,
  updateCourse,
} from '../shared/services/courses/courses-service.ts'
import { enroll } from '../shared/services/enrollments/enrollment-engine.ts'
import { expireEnrollment } from '../shared/services/enrollments/enrollment-lifecycle.ts'
import { dropEnrollment, refusalError } from '../shared/services/enrollments/enrollments-service.ts'
import { recordActivity } from '../shared/services/enrollments/learner-service.ts'
import { createGroup } from '../shared/services/groups/groups-service.ts'
import { assignRole, createJobRole } from '../shared/services/skills/job-roles-service.ts'
import { createDomain, createSkill, setLevel } from '../shared/services/skills/skills-service.ts'
import { createUser, recordLogin } from '../shared/services/users/users-service.ts'

const DAY_MS = 24 * 60 * 60 * 1000

/** What the seed wrote, for the start line and the tests. */
export interface DemoDataSummary {
  readonly users: number
  readonly groups: number
  readonly courses: number
  readonly enrollments: number
}

type Person = 'maya' | 'liam' | 'sofia' | 'noah' | 'emma' | 'lucas' | 'olivia' | 'ethan'
type Team = 'warehouse' | 'office'

const people: readonly {
  key: Person
  first: string
  last: string
  role: 'manager' | 'learner'
  team: Team
}[] = [
  { key: 'maya', first: 'Maya', last: 'Patel', role: 'manager', team: 'office' },
  { key: 'liam', first: 'Liam', last: 'Chen', role: 'learner', team: 'warehouse' },
  { key: 'sofia', first: 'Sofia', last: 'Garcia', role: 'learner', team: 'warehouse' },
  { key: 'noah', first: 'Noah', last: 'Williams', role: 'learner', team: 'warehouse' },
  { key: 'emma', first: 'Emma', last: 'Johnson', role: 'learner', team: 'office' },
  { key: 'lucas', first: 'Lucas', last: 'Martin', role: 'learner', team: 'warehouse' },
  { key: 'olivia', first: 'Olivia', last: 'Brown', role: 'learner', team: 'office' },
  { key: 'ethan', first: 'Ethan', last: 'Davis', role: 'learner', team: 'office' },
]

interface CourseSpec {
  readonly title: string
  readonly description: string
  readonly minutes: number
  readonly modules: readonly AppModuleInput[]
  readonly settings: Partial<CourseSettings> & { category: string }
}

export async function seedDemoData(tenant: Tenant, now = new Date()): Promise<DemoDataSummary> {
  const daysAgo = (n: number) => new Date(now.getTime() - n * DAY_MS).toISOString()

  const [warehouse, office] = await Promise.all([
    createGroup(
      tenant,
      { name: 'Warehouse team', description: 'Forklift drivers and pickers' },
      null,
      daysAgo(60),
    ),
    createGroup(
      tenant,
      { name: 'Office team', description: 'Administration and planning' },
      null,
      daysAgo(60),
    ),
  ])
  const teams: Record<Team, string> = { warehouse: warehouse.id, office: office.id }
  const created = await Promise.all(
    people.map((p) =>
      createUser(
        tenant,
        {
          email: `${p.first}.${p.last}@demo.example.com`.toLowerCase(),
          first_name: p.first,
          last_name: p.last,
          role: p.role,
          group_ids: [teams[p.team]],
        },
        operator,
        daysAgo(60),
      ),
    ),
  )
  const user = Object.fromEntries(people.map((p, i) => [p.key, created[i]?.id ?? ''])) as Record<
    Person,
    string
  >

  const domain = await createDomain(tenant, { name: 'Operations', nameFr: 'Opérations' })
  const skill = (name: string, nameFr: string, isCritical: boolean) =>
    createSkill(tenant, { domainId: domain.id, name, nameFr, isActive: true, isCritical }, daysAgo(60))
  const [forklift, firstAid] = await Promise.all([
    skill('Forklift operation', 'Conduite de chariot élévateur', true),
    skill('First aid', 'Premiers secours', false),
    skill('Data protection', 'Protection des données', false),
  ])
  const role = await createJobRole(
    tenant,
    {
      name: 'Warehouse lead',
      description: 'Runs a warehouse shift',
      required_skills: [
        { skill_id: forklift.id, required_level: 'proficient' },
        { skill_id: firstAid.id, required_level: 'developing' },
      ],
    },
    daysAgo(60),
  )

  const course = async (spec: CourseSpec): Promise<{ id: string; modules: string[] }> => {
    const at = daysAgo(60)
    const c = await createCourse(
      tenant,
      { title: spec.title, description: spec.description, estimated_minutes: spec.minutes },
      {},
      at,
    )
    const modules: string[] = []
    // One at a time: each module takes the next place in the course.
    for (const m of spec.modules) modules.push((await addModule(tenant, c.id, m, at)).id)
    await configureCourse(tenant, c.id, spec.settings, at)
    await updateCourse(tenant, c.id, { status: 'published' }, at)
    return { id: c.id, modules }
  }
  const [safety, privacy, forkliftCourse, leadership] = await Promise.all([
    course({
      title: 'Workplace Safety Essentials',
      description: 'Hazards, safe habits and what to do when something goes wrong.',
      minutes: 45,
      modules: [
        { title: 'Hazards at work', module_type: 'video' },
        { title: 'Safety handbook', module_type: 'document' },
        { title: 'Safety check', module_type: 'quiz' },
      ],
      settings: {
        category: 'Safety',
        certificateValidityDays: 365,
        grantsSkill: { skillId: firstAid.id, level: 'developing' },
      },
    }),
    course({
      title: 'Data Protection Basics',
      description: 'Personal data at work: what to keep, share and delete.',
      minutes: 30,
      modules: [
        { title: 'Why it matters', module_type: 'video' },
        { title: 'Everyday rules', module_type: 'html' },
      ],
      settings: { category: 'Compliance', accessDays: 30, certificateValidityDays: 730 },
    }),
    course({
      title: 'Forklift Certification',
      description: 'Operating a counterbalance forklift safely; a manager approves each place.',
      minutes: 120,
      modules: [
        { title: 'Controls and checks', module_type: 'video' },
        { title: 'Practical assessment', module_type: 'document' },
      ],
      settings: { category: 'Safety', requiresApproval: true },
    }),
    course({
      title: 'Leading a Shift',
      description: 'A small-group workshop for new shift leads.',
      minutes: 90,
      modules: [{ title: 'Workshop notes', module_type: 'document' }],
      settings: { category: 'Leadership', seatLimit: 2, waitlist: true },
    }),
  ])

  /** One enrollment through the engine, as the app makes it, at that time. */
  let enrollments = 0
  const enrollAt = async (person: Person, courseId: string, at: string): Promise<string> => {
    enrollments += 1
    const [result] = await enroll(tenant, [{ userId: user[person], courseId, dueDate: null }], 'app', at)
    if (!result) throw new Error('The engine returned no result')
    if ('error' in result) throw refusalError(result.error)
    return result.ok.id
  }
  const complete = async (enrollmentId: string, modules: readonly string[], at: string) => {
    for (const moduleId of modules)
      await recordActivity(tenant, enrollmentId, { moduleId, kind: 'complete', at })
  }

  // Completed, with certificates (and the First aid skill the safety course grants).
  const [liamSafety, sofiaSafety, ethanPrivacy] = await Promise.all([
    enrollAt('liam', safety.id, daysAgo(30)),
    enrollAt('sofia', safety.id, daysAgo(25)),
    enrollAt('ethan', privacy.id, daysAgo(20)),
  ])
  await Promise.all([
    complete(liamSafety, safety.modules, daysAgo(10)),
    complete(sofiaSafety, safety.modules, daysAgo(8)),
    complete(ethanPrivacy, privacy.modules, daysAgo(5)),
  ])
  // Active: one under way, others not started; one dropped; one whose access ended (expired).
  const [noahSafety, , emmaSafety, oliviaPrivacy] = await Promise.all([
    enrollAt('noah', safety.id, daysAgo(6)),
    enrollAt('lucas', safety.id, daysAgo(2)),
    enrollAt('emma', safety.id, daysAgo(15)),
    enrollAt('olivia', privacy.id, daysAgo(45)),
    enrollAt('emma', privacy.id, daysAgo(3)),
  ])
  await Promise.all([
    complete(noahSafety, safety.modules.slice(0, 1), daysAgo(4)),
    dropEnrollment(tenant, emmaSafety, daysAgo(12)),
    // What the enrollment-expiry job does for it, as of now: 30 days of access ended 15 days ago.
    expireEnrollment(tenant, oliviaPrivacy, now.toISOString()),
  ])
  // Pending approval, and a full course: two places taken, the third on its waitlist.
  await enrollAt('noah', forkliftCourse.id, daysAgo(1))
  await enrollAt('maya', leadership.id, daysAgo(9))
  await enrollAt('olivia', leadership.id, daysAgo(9))
  await enrollAt('ethan', leadership.id, daysAgo(7))

  await Promise.all([
    setLevel(tenant, user.liam, forklift.id, { level: 'proficient', source: 'validated' }, daysAgo(20)),
    setLevel(tenant, user.lucas, forklift.id, { level: 'developing', source: 'assessment' }, daysAgo(3)),
  ])
  await Promise.all([
    assignRole(tenant, user.liam, role.id, 'manual', daysAgo(20)),
    assignRole(tenant, user.sofia, role.id, 'manual', daysAgo(20)),
  ])
  // Sign-ins, as the app records them: the activity report's last logins.
  await Promise.all(
    (['liam', 'sofia', 'noah', 'ethan'] as const).map((p, i) => recordLogin(tenant, user[p], daysAgo(i + 1))),
  )
  return { users: people.length, groups: 2, courses: 4, enrollments }
}
