/**
 * Learner activity and completion, driven through the CLI as the learner app would (the API has no
 * route for it), observed through the API: progress, completion, certificates, events, completion
 * imports and GET /api/v1/completions. Also the CLI's course settings and categories.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listOutboxEvents } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { enroll, user } from '../helpers/learning.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'

async function course(
  t: TestTenant,
  modules: readonly { title: string; module_type: string; is_required?: boolean }[] = [],
  publish = true,
) {
  const r = await t.api.post('/api/v1/courses', { title: `Course ${randomUUID().slice(0, 6)}` })
  expect(r.status).toBe(201)
  const id = r.body.data.id as string
  const added: { id: string; title: string }[] = []
  for (const m of modules) {
    const reply = await t.api.post(`/api/v1/courses/${id}/modules`, m)
    expect(reply.status).toBe(201)
    added.push(reply.body.data)
  }
  if (publish) expect((await t.api.patch(`/api/v1/courses/${id}`, { status: 'published' })).status).toBe(200)
  return { id, title: r.body.data.title as string, modules: added }
}

/** `lms learner <command> --tenant <slug> --enrollment <id> --module <id> ...` */
/** The smallest valid ZIP (an empty archive) plus a comment, so each package's bytes are its own. */
function zip(comment: string): Buffer {
  const text = Buffer.from(comment, 'utf8')
  const eocd = Buffer.alloc(22)
  eocd.writeUInt32LE(0x06054b50, 0)
  eocd.writeUInt16LE(text.length, 20)
  return Buffer.concat([eocd, text])
}

/** Uploads a package for the module as the app does (`lms course upload-package`). */
async function uploadPackage(t: TestTenant, courseId: string, moduleId: string, bytes: Buffer) {
  const file = join(await mkdtemp(join(tmpdir(), 'lms-package-')), 'package.zip')
  await writeFile(file, bytes)
  return lms(
    'course',
    'upload-package',
    '--tenant',
    t.slug,
    '--course',
    courseId,
    '--module',
    moduleId,
    '--file',
    file,
  )
}

function learner(t: TestTenant, command: string, enrollmentId: string, moduleId: string, ...rest: string[]) {
  return lms(
    'learner',
    command,
    '--tenant',
    t.slug,
    '--enrollment',
    enrollmentId,
    '--module',
    moduleId,
    ...rest,
  )
}

async function events(t: TestTenant, name: string) {
  return (await listOutboxEvents(t.tenant)).filter((e) => e.event === name)
}

const moduleView = (
  m: { id: string; title: string },
  status: string,
  score: number | null,
  time: number,
  completedAt: string | null,
) => ({
  module_id: m.id,
  module_title: m.title,
  status,
  score,
  time_spent_seconds: time,
  completed_at: completedAt,
})

describe('CLI: lms learner', () => {
  it('records a login with --at, shown as last_login_at over the API', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)

    // Act
    const login = await lms(
      'learner',
      'login',
      '--tenant',
      t.slug,
      '--user',
      u.id,
      '--at',
      '2026-02-03T04:05:06Z',
    )

    // Assess
    expect(login.code).toBe(0)
    expect(login.json).toEqual({ user_id: u.id, last_login_at: '2026-02-03T04:05:06.000Z' })
    expect((await t.api.get(`/api/v1/users/${u.id}`)).body.data.last_login_at).toBe(
      '2026-02-03T04:05:06.000Z',
    )
  })

  it('enrolls as the app does, through the same engine and guards', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const draft = await course(t, [], false)

    // Act
    const enrolled = await lms('learner', 'enroll', '--tenant', t.slug, '--user', u.id, '--course', k.id)
    const again = await lms('learner', 'enroll', '--tenant', t.slug, '--user', u.id, '--course', k.id)
    const refused = await lms('learner', 'enroll', '--tenant', t.slug, '--user', u.id, '--course', draft.id)

    // Assess
    expect(enrolled.code).toBe(0)
    expect(enrolled.json).toMatchObject({
      user_id: u.id,
      course_id: k.id,
      status: 'active',
      source: 'native',
    })
    expect(again.json.error.code).toBe(409)
    expect(refused.code).not.toBe(0)
    expect(refused.json.error.code).toBe(422)
    expect((await events(t, 'enrollment.created')).map((e) => e.data.enrollmentId)).toEqual([
      enrolled.json.id,
    ])
  })

  it('starts, progresses and completes a module with score and time spent; complete-module prints the progress object', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [
      { title: 'Watch', module_type: 'video' },
      { title: 'Read', module_type: 'document' },
    ])
    const [watch, read] = k.modules as [{ id: string; title: string }, { id: string; title: string }]
    const e = await enroll(t, (await user(t)).id, k.id)

    // Act
    const started = await learner(t, 'start-module', e.id, watch.id, '--at', '2026-03-01T12:00:00+02:00')
    const progressed = await learner(
      t,
      'progress-module',
      e.id,
      watch.id,
      '--time-spent',
      '45',
      '--at',
      '2026-03-01T10:05:00Z',
    )
    const completed = await learner(
      t,
      'complete-module',
      e.id,
      watch.id,
      '--score',
      '80',
      '--time-spent',
      '15',
      '--at',
      '2026-03-01T10:10:00Z',
    )

    // Assess
    expect([started.code, progressed.code, completed.code]).toEqual([0, 0, 0])
    expect(started.json).toEqual({
      enrollment_id: e.id,
      overall_progress_percent: 0,
      time_spent_seconds: 0,
      last_activity_at: '2026-03-01T10:00:00.000Z',
      modules: [
        moduleView(watch, 'in_progress', null, 0, null),
        moduleView(read, 'not_started', null, 0, null),
      ],
    })
    expect(progressed.json.modules[0]).toEqual(moduleView(watch, 'in_progress', null, 45, null))
    expect(progressed.json.time_spent_seconds).toBe(45)
    const expected = {
      enrollment_id: e.id,
      overall_progress_percent: 50,
      time_spent_seconds: 60,
      last_activity_at: '2026-03-01T10:10:00.000Z',
      modules: [
        moduleView(watch, 'completed', 80, 60, '2026-03-01T10:10:00.000Z'),
        moduleView(read, 'not_started', null, 0, null),
      ],
    }
    expect(completed.json).toEqual(expected)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}/progress`)).body.data).toEqual(expected)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data).toMatchObject({
      status: 'active',
      progress_percent: 50,
      score: 80,
      started_at: '2026-03-01T10:00:00.000Z',
      completed_at: null,
    })
    expect(await events(t, 'enrollment.completed')).toEqual([])
  })

  it('keeps started_at at the earliest and last_activity_at at the latest activity when a backdated activity arrives late', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [{ title: 'Watch', module_type: 'video' }])
    const watch = k.modules[0] as { id: string; title: string }
    const e = await enroll(t, (await user(t)).id, k.id)
    const later = await learner(
      t,
      'progress-module',
      e.id,
      watch.id,
      '--time-spent',
      '30',
      '--at',
      '2026-03-01T10:30:00Z',
    )

    // Act
    const backdated = await learner(t, 'start-module', e.id, watch.id, '--at', '2026-03-01T10:00:00Z')

    // Assess
    expect([later.code, backdated.code]).toEqual([0, 0])
    const progress = (await t.api.get(`/api/v1/enrollments/${e.id}/progress`)).body.data
    expect(progress).toMatchObject({ time_spent_seconds: 30, last_activity_at: '2026-03-01T10:30:00.000Z' })
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.started_at).toBe(
      '2026-03-01T10:00:00.000Z',
    )
  })

  it('refuses a score outside 0..100 (400), a module of another course (404) and a dropped enrollment (422)', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [{ title: 'Watch', module_type: 'video' }])
    const u = await user(t)
    const e = await enroll(t, u.id, k.id)
    const other = await course(t, [{ title: 'Gone', module_type: 'video' }])
    const dropped = await enroll(t, u.id, other.id)
    expect((await t.api.delete(`/api/v1/enrollments/${dropped.id}`)).status).toBe(204)

    // Act
    const badScore = await learner(t, 'complete-module', e.id, k.modules[0]?.id ?? '', '--score', '120')
    const unknown = await learner(t, 'complete-module', e.id, randomUUID())
    const onDropped = await learner(t, 'complete-module', dropped.id, other.modules[0]?.id ?? '')

    // Assess
    expect(badScore.code).not.toBe(0)
    expect(badScore.json.error.code).toBe(400)
    expect(badScore.json.error.message).toContain('score')
    expect(unknown.json.error.code).toBe(404)
    expect(onDropped.json.error.code).toBe(422)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.progress_percent).toBe(0)
    expect((await t.api.get(`/api/v1/enrollments/${dropped.id}`)).body.data).toMatchObject({
      status: 'dropped',
      progress_percent: 0,
    })
  })

  it('grades quiz attempts: below passing leaves the module in progress; a passing one completes it with its score', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [
      { title: 'Check', module_type: 'quiz' },
      { title: 'Watch', module_type: 'video' },
    ])
    const [quiz, video] = k.modules as [{ id: string; title: string }, { id: string; title: string }]
    const e = await enroll(t, (await user(t)).id, k.id)

    // Act
    const failed = await learner(
      t,
      'quiz-attempt',
      e.id,
      quiz.id,
      '--score',
      '5',
      '--max',
      '10',
      '--time-spent',
      '40',
      '--at',
      '2026-05-01T08:00:00Z',
    )
    const passed = await learner(
      t,
      'quiz-attempt',
      e.id,
      quiz.id,
      '--score',
      '9',
      '--max',
      '10',
      '--time-spent',
      '20',
      '--at',
      '2026-05-01T08:30:00Z',
    )
    const notAQuiz = await learner(t, 'quiz-attempt', e.id, video.id, '--score', '9', '--max', '10')

    // Assess
    expect(failed.code).toBe(0)
    expect(failed.json.attempt).toEqual({
      raw: 5,
      max: 10,
      scaled: 0.5,
      passed: false,
      graded_at: '2026-05-01T08:00:00.000Z',
    })
    expect(failed.json.progress.modules[0]).toEqual(moduleView(quiz, 'in_progress', null, 40, null))
    expect(failed.json.progress.overall_progress_percent).toBe(0)
    expect(passed.json.attempt).toEqual({
      raw: 9,
      max: 10,
      scaled: 0.9,
      passed: true,
      graded_at: '2026-05-01T08:30:00.000Z',
    })
    expect(passed.json.progress.modules[0]).toEqual(
      moduleView(quiz, 'completed', 90, 60, '2026-05-01T08:30:00.000Z'),
    )
    expect(passed.json.progress.overall_progress_percent).toBe(50)
    expect(notAQuiz.json.error.code).toBe(422)
    expect((await t.api.get(`/api/v1/enrollments/${e.id}/progress`)).body.data).toEqual(passed.json.progress)
  })

  it('applies --passing-score: 80 out of 100 fails a quiz that needs 85', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [{ title: 'Exam', module_type: 'quiz' }])
    const e = await enroll(t, (await user(t)).id, k.id)

    // Act
    const attempt = await learner(
      t,
      'quiz-attempt',
      e.id,
      k.modules[0]?.id ?? '',
      '--score',
      '80',
      '--passing-score',
      '85',
    )

    // Assess
    expect(attempt.json.attempt).toMatchObject({ raw: 80, max: 100, scaled: 0.8, passed: false })
    expect(attempt.json.progress.modules[0].status).toBe('in_progress')
    expect((await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data.status).toBe('active')
  })

  it('completes an archive module on its first download; other modules cannot be downloaded', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [
      { title: 'Pack', module_type: 'archive' },
      { title: 'Watch', module_type: 'video' },
    ])
    const [pack, video] = k.modules as [{ id: string; title: string }, { id: string; title: string }]
    const e = await enroll(t, (await user(t)).id, k.id)
    expect((await uploadPackage(t, k.id, pack.id, zip('pack'))).code).toBe(0)

    // Act
    const download = await learner(t, 'download', e.id, pack.id, '--at', '2026-06-01T07:00:00Z')
    const notArchive = await learner(t, 'download', e.id, video.id)

    // Assess
    expect(download.code).toBe(0)
    expect(download.json.progress).toEqual({
      enrollment_id: e.id,
      overall_progress_percent: 50,
      time_spent_seconds: 0,
      last_activity_at: '2026-06-01T07:00:00.000Z',
      modules: [
        moduleView(pack, 'completed', null, 0, '2026-06-01T07:00:00.000Z'),
        moduleView(video, 'not_started', null, 0, null),
      ],
    })
    expect(notArchive.code).not.toBe(0)
    expect(notArchive.json.error.code).toBe(422)
  })

  it('hands out a pre-signed link that downloads the package as-is, as an attachment, for 15 minutes', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [{ title: 'Field guide é', module_type: 'archive' }])
    const [pack] = k.modules as [{ id: string; title: string }]
    const e = await enroll(t, (await user(t)).id, k.id)
    const bytes = zip(`package ${randomUUID()}`)
    const uploaded = await uploadPackage(t, k.id, pack.id, bytes)

    // Act
    const before = Date.now()
    const download = await learner(t, 'download', e.id, pack.id)
    const fetched = await fetch(download.json.download_url as string)

    // Assess
    expect(uploaded.json).toEqual({ module_id: pack.id, bytes: bytes.length })
    expect(fetched.status).toBe(200)
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true)
    expect(fetched.headers.get('content-disposition')).toMatch(/^attachment; filename="Field guide _\.zip"/)
    expect(fetched.headers.get('content-type')).toBe('application/zip')
    const url = new URL(download.json.download_url as string)
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900')
    const expiresAt = Date.parse(download.json.expires_at as string)
    expect(expiresAt - before).toBeGreaterThanOrEqual(899_000)
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(900_000)
    expect(download.json.progress.modules[0].status).toBe('completed')
  })

  it('answers 404 and records nothing while the module has no package; refuses a file that is not a ZIP', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t, [{ title: 'Pack', module_type: 'archive' }])
    const [pack] = k.modules as [{ id: string; title: string }]
    const e = await enroll(t, (await user(t)).id, k.id)

    // Act
    const download = await learner(t, 'download', e.id, pack.id)
    const notZip = await uploadPackage(t, k.id, pack.id, Buffer.from('just text'))

    // Assess
    expect(download.code).not.toBe(0)
    expect(download.json.error.code).toBe(404)
    expect(notZip.json.error).toMatchObject({ code: 400, message: expect.stringMatching(/^file/) })
    const progress = await t.api.get(`/api/v1/enrollments/${e.id}/progress`)
    expect(progress.body.data.modules[0].status).toBe('not_started')
  })

  it('completes the enrollment with the last required module: completed_at = --at, a certificate with number and expiry, and the events', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, [
      { title: 'Intro', module_type: 'video' },
      { title: 'Extra', module_type: 'html', is_required: false },
      { title: 'Pack', module_type: 'archive' },
    ])
    const [intro, extra, pack] = k.modules as { id: string; title: string }[] as [
      { id: string; title: string },
      { id: string; title: string },
      { id: string; title: string },
    ]
    const configured = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--certificate-validity-days',
      '30',
      '--ceu',
      '1.5',
    )
    expect(configured.json).toMatchObject({ certificate_validity_days: 30, ceu: 1.5 })
    const e = await enroll(t, u.id, k.id)
    await uploadPackage(t, k.id, pack.id, zip('final pack'))
    await learner(
      t,
      'complete-module',
      e.id,
      intro.id,
      '--score',
      '80',
      '--time-spent',
      '120',
      '--at',
      '2026-03-01T10:00:00Z',
    )

    // Act
    const last = await learner(t, 'download', e.id, pack.id, '--at', '2026-03-02T09:00:00Z')

    // Assess
    expect(last.json.progress).toMatchObject({
      overall_progress_percent: 100,
      last_activity_at: '2026-03-02T09:00:00.000Z',
    })
    expect(last.json.progress.modules[1]).toEqual(moduleView(extra, 'not_started', null, 0, null))
    const done = (await t.api.get(`/api/v1/enrollments/${e.id}`)).body.data
    expect(done).toMatchObject({
      status: 'completed',
      completed_at: '2026-03-02T09:00:00.000Z',
      progress_percent: 100,
      pass_fail: 'pass',
      score: 80,
    })
    expect(done.certificate_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect((await events(t, 'enrollment.completed')).map((x) => x.data)).toEqual([
      { enrollmentId: e.id, userId: u.id, courseId: k.id, completedAt: '2026-03-02T09:00:00.000Z' },
    ])
    const issued = await events(t, 'certificate.issued')
    expect(issued).toHaveLength(1)
    expect(issued[0]?.data).toEqual({
      certificateId: done.certificate_id,
      certificateNumber: expect.stringMatching(/^CERT-2026-[0-9A-Z]+$/),
      userId: u.id,
      courseId: k.id,
    })
    const item = (await t.api.get(`/api/v1/users/${u.id}/transcript`)).body.data.items[0]
    expect(item).toMatchObject({
      id: e.id,
      status: 'completed',
      completed_at: '2026-03-02T09:00:00.000Z',
      certificate_id: done.certificate_id,
      certificate_number: issued[0]?.data.certificateNumber,
      expires_at: '2026-04-01T09:00:00.000Z',
      ceu_value: 1.5,
    })
    expect((await t.api.get(`/api/v1/courses/${k.id}/enrollments?status=completed`)).body.meta.total).toBe(1)
  })

  it('issues a certificate without expiry when the course sets no validity', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t, [{ title: 'Only', module_type: 'document' }])
    const e = await enroll(t, u.id, k.id)

    // Act
    await learner(t, 'complete-module', e.id, k.modules[0]?.id ?? '', '--at', '2025-12-31T23:00:00Z')

    // Assess
    const item = (await t.api.get(`/api/v1/users/${u.id}/transcript`)).body.data.items[0]
    expect(item).toMatchObject({
      status: 'completed',
      completed_at: '2025-12-31T23:00:00.000Z',
      expires_at: null,
    })
    expect(item.certificate_number).toMatch(/^CERT-2025-/)
    expect(await events(t, 'certificate.issued')).toHaveLength(1)
  })
})

describe('CLI: lms completion import', () => {
  it('imports a historical completion: source import and the original completed_at kept', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)

    // Act
    const imported = await lms(
      'completion',
      'import',
      '--tenant',
      t.slug,
      '--user',
      u.id,
      '--course',
      k.id,
      '--completed-at',
      '2019-05-04T10:00:00Z',
      '--score',
      '88',
    )

    // Assess
    expect(imported.code).toBe(0)
    expect(imported.json).toMatchObject({
      user_id: u.id,
      course_id: k.id,
      status: 'completed',
      completed_at: '2019-05-04T10:00:00.000Z',
      source: 'import',
      score: 88,
    })
    const got = (await t.api.get(`/api/v1/enrollments/${imported.json.id}`)).body.data
    expect(got).toMatchObject({
      status: 'completed',
      completed_at: '2019-05-04T10:00:00.000Z',
      source: 'import',
    })
    const item = (await t.api.get(`/api/v1/users/${u.id}/transcript`)).body.data.items[0]
    expect(item).toMatchObject({
      id: imported.json.id,
      item_id: k.id,
      status: 'completed',
      completed_at: '2019-05-04T10:00:00.000Z',
      score_percent: 88,
    })
  })

  it('answers 409 for a second import of the same pair, 404 for an unknown user or course, 400 without --completed-at or with a score above 100', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const k = await course(t)
    const run = (userId: string, courseId: string, ...rest: string[]) =>
      lms('completion', 'import', '--tenant', t.slug, '--user', userId, '--course', courseId, ...rest)
    expect((await run(u.id, k.id, '--completed-at', '2020-01-01T00:00:00Z')).code).toBe(0)

    // Act
    const [twice, noUser, noCourse, noDate] = await Promise.all([
      run(u.id, k.id, '--completed-at', '2021-01-01T00:00:00Z'),
      run(randomUUID(), k.id, '--completed-at', '2021-01-01T00:00:00Z'),
      run(u.id, randomUUID(), '--completed-at', '2021-01-01T00:00:00Z'),
      run(u.id, k.id),
    ])

    // Assess
    expect(twice.json.error.code).toBe(409)
    expect(noUser.json.error.code).toBe(404)
    expect(noCourse.json.error.code).toBe(404)
    expect(noDate.json.error.code).toBe(400)
    expect(noDate.json.error.message).toContain('completed-at')
    const badScore = await run(
      u.id,
      (await course(t)).id,
      '--completed-at',
      '2021-01-01T00:00:00Z',
      '--score',
      '150',
    )
    expect(badScore.code).not.toBe(0)
    expect(badScore.json.error?.code).toBe(400)
    expect((await t.api.get(`/api/v1/enrollments?user_id=${u.id}`)).body.meta.total).toBe(1)
  })
})

describe('Route: GET /api/v1/completions', () => {
  it('lists completed enrollments (native and imported) newest completion first, with the user_id filter', async () => {
    // Prepare
    const t = await newTenant()
    const [a, b] = [await user(t), await user(t)]
    const k = await course(t, [{ title: 'Only', module_type: 'video' }])
    const [old1, old2, other] = [await course(t), await course(t), await course(t)]
    const native = await enroll(t, a.id, k.id)
    await learner(t, 'complete-module', native.id, k.modules[0]?.id ?? '', '--at', '2026-03-02T09:00:00Z')
    const imp = (userId: string, courseId: string, at: string) =>
      lms(
        'completion',
        'import',
        '--tenant',
        t.slug,
        '--user',
        userId,
        '--course',
        courseId,
        '--completed-at',
        at,
      )
    const [aOld, bMid] = await Promise.all([
      imp(a.id, old1.id, '2019-05-04T10:00:00Z'),
      imp(b.id, old2.id, '2024-06-01T00:00:00Z'),
    ])
    await enroll(t, b.id, k.id)
    const dropped = await enroll(t, b.id, other.id)
    expect((await t.api.delete(`/api/v1/enrollments/${dropped.id}`)).status).toBe(204)

    // Act
    const all = await t.api.get('/api/v1/completions')
    const forA = await t.api.get(`/api/v1/completions?user_id=${a.id}`)
    const page2 = await t.api.get('/api/v1/completions?per_page=1&page=2')
    const bad = await t.api.get('/api/v1/completions?user_id=someone')

    // Assess
    expect(all.status).toBe(200)
    expect(all.body.data).toEqual([
      {
        id: native.id,
        user_id: a.id,
        course_id: k.id,
        status: 'completed',
        completed_at: '2026-03-02T09:00:00.000Z',
        source: 'native',
      },
      {
        id: bMid.json.id,
        user_id: b.id,
        course_id: old2.id,
        status: 'completed',
        completed_at: '2024-06-01T00:00:00.000Z',
        source: 'import',
      },
      {
        id: aOld.json.id,
        user_id: a.id,
        course_id: old1.id,
        status: 'completed',
        completed_at: '2019-05-04T10:00:00.000Z',
        source: 'import',
      },
    ])
    expect(all.body.meta).toEqual({ page: 1, per_page: 50, total: 3 })
    expect(forA.body.data.map((c: { id: string }) => c.id)).toEqual([native.id, aOld.json.id])
    expect(forA.body.meta.total).toBe(2)
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([bMid.json.id])
    expect(page2.body.meta).toEqual({ page: 2, per_page: 1, total: 3 })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toContain('user_id')
  })
})

describe('CLI: lms course configure and lms category create', () => {
  it('creates a category once, configures every setting and the category, and the settings apply', async () => {
    // Prepare
    const t = await newTenant()
    const u = await user(t)
    const prerequisite = await course(t)
    const k = await course(t)

    // Act
    const category = await lms('category', 'create', '--tenant', t.slug, '--name', 'Safety')
    const sameCategory = await lms('category', 'create', '--tenant', t.slug, '--name', 'Safety')
    const configured = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--category',
      'Safety',
      '--seat-limit',
      '2',
      '--waitlist',
      'on',
      '--requires-approval',
      'off',
      '--enrollment-opens-at',
      '2026-01-01T00:00:00Z',
      '--enrollment-closes-at',
      '2030-01-01T00:00:00Z',
      '--prerequisites',
      prerequisite.id,
      '--certificate-validity-days',
      '365',
      '--ceu',
      '2.5',
      '--language',
      'fr-CA',
      '--requires-session-selection',
      'off',
    )

    // Assess
    expect(category.code).toBe(0)
    expect(category.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Safety' })
    expect(sameCategory.json.id).toBe(category.json.id)
    expect(configured.code).toBe(0)
    expect(configured.json).toEqual({
      course_id: k.id,
      requires_approval: false,
      seat_limit: 2,
      waitlist: true,
      enrollment_opens_at: '2026-01-01T00:00:00.000Z',
      enrollment_closes_at: '2030-01-01T00:00:00.000Z',
      prerequisites: [prerequisite.id],
      category_id: category.json.id,
      category: 'Safety',
      language: 'fr-CA',
      certificate_validity_days: 365,
      ceu: 2.5,
      requires_session_selection: false,
      access_days: null,
    })
    expect((await t.api.get(`/api/v1/courses/${k.id}`)).body.data.category_id).toBe(category.json.id)
    const listed = await t.api.get('/api/v1/courses?category=Safety')
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([k.id])
    const refused = await t.api.post('/api/v1/enrollments', { user_id: u.id, course_id: k.id })
    expect(refused.status).toBe(422)
    expect(refused.body.error.message).toMatch(/prerequisite/)
  })

  it('answers 400 for a course that is its own prerequisite and 404 for an unknown course', async () => {
    // Prepare
    const t = await newTenant()
    const k = await course(t)

    // Act
    const own = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      k.id,
      '--prerequisites',
      k.id,
    )
    const unknown = await lms(
      'course',
      'configure',
      '--tenant',
      t.slug,
      '--course',
      randomUUID(),
      '--seat-limit',
      '1',
    )

    // Assess
    expect(own.json.error.code).toBe(400)
    expect(own.json.error.message).toMatch(/prerequisite/)
    expect(unknown.json.error.code).toBe(404)
  })
})
