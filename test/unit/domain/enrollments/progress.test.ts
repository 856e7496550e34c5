/**
 * Learner activity, progress and completion (spec: "Enrollment progress", the Enrollment
 * transitions; decision note 0007, "Learner activity, completion, certificates"): required modules
 * decide progress and completion, time adds up, the first completion stays, and a completed
 * enrollment reads 100 %.
 */
import { describe, expect, it } from 'vitest'
import type { Module } from '../../../../shared/domain/courses/module.ts'
import type { Enrollment, ModuleProgress } from '../../../../shared/domain/enrollments/enrollment.ts'
import { anEnrollment } from '../../../helpers/builders.ts'
import {
  applyActivity,
  completeEnrollment,
  enrollmentScore,
  isComplete,
  notStarted,
  progressPercent,
  progressView,
  type ActivityChange,
} from '../../../../shared/domain/enrollments/progress.ts'

const courseId = '33333333-3333-4333-8333-333333333333'
const enrolledAt = '2026-03-01T09:00:00.000Z'
const t = (minute: number) => new Date(Date.parse('2026-03-01T10:00:00.000Z') + minute * 60_000).toISOString()

function module(id: string, isRequired = true, orderIndex = 0): Module {
  return {
    id,
    courseId,
    title: `Module ${id}`,
    description: null,
    moduleType: 'video',
    isRequired,
    orderIndex,
    createdAt: '2026-01-01T00:00:00.000Z',
  }
}

/** Two required modules and an optional one, in course order. */
const watch = module('m-watch', true, 0)
const quiz = module('m-quiz', true, 1)
const extra = module('m-extra', false, 2)
const course = [watch, quiz, extra] as const

/** An active enrollment on a clean slate, as the engine creates it. */
function enrollment(overrides: Partial<Enrollment> = {}): Enrollment {
  return anEnrollment(
    {
      id: '0f1e2d3c-4b5a-4968-8776-655443322110',
      userId: '22222222-2222-4222-8222-222222222222',
      courseId,
      ...overrides,
    },
    enrolledAt,
  )
}

/** Applies each change in turn, as successive requests would. */
function play(changes: readonly ActivityChange[], modules: readonly Module[] = course, from = enrollment()) {
  return changes.reduce((e, change) => applyActivity(e, modules, change), from)
}

const completed = (at: string, score: number | null = null): ModuleProgress => ({
  status: 'completed',
  score,
  timeSpentSeconds: 0,
  startedAt: at,
  completedAt: at,
  lastActivityAt: at,
})

describe('Function: applyActivity', () => {
  describe('module state', () => {
    it('puts a module in progress and stamps start and last activity when the learner starts it', () => {
      // Act
      const e = play([{ moduleId: watch.id, kind: 'start', at: t(0) }])

      // Assess
      expect(e.modules[watch.id]).toEqual({
        status: 'in_progress',
        score: null,
        timeSpentSeconds: 0,
        startedAt: t(0),
        completedAt: null,
        lastActivityAt: t(0),
      })
      expect(e).toMatchObject({
        status: 'active',
        startedAt: t(0),
        lastActivityAt: t(0),
        progressPercent: 0,
        score: null,
        updatedAt: t(0),
      })
    })

    it('keeps the first start time when the learner starts the same module again', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'start', at: t(0) },
        { moduleId: watch.id, kind: 'start', at: t(30) },
      ])

      // Assess
      expect(e.modules[watch.id]).toMatchObject({ startedAt: t(0), lastActivityAt: t(30) })
      expect(e).toMatchObject({ startedAt: t(0), lastActivityAt: t(30) })
    })

    it('keeps the enrollment start when the learner starts a second module', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'start', at: t(0) },
        { moduleId: quiz.id, kind: 'start', at: t(10) },
      ])

      // Assess
      expect(e.startedAt).toBe(t(0))
      expect(e.modules[quiz.id]).toMatchObject({ status: 'in_progress', startedAt: t(10) })
      expect(e.modules[watch.id]).toMatchObject({ status: 'in_progress', lastActivityAt: t(0) })
    })

    it('starts and completes a module at the same instant when the first activity is its completion', () => {
      // Act
      const e = play([{ moduleId: watch.id, kind: 'complete', score: 80, at: t(5) }])

      // Assess
      expect(e.modules[watch.id]).toEqual({
        status: 'completed',
        score: 80,
        timeSpentSeconds: 0,
        startedAt: t(5),
        completedAt: t(5),
        lastActivityAt: t(5),
      })
      expect(e.startedAt).toBe(t(5))
    })

    it('leaves other modules untouched when one module records activity', () => {
      // Prepare
      const before = play([{ moduleId: quiz.id, kind: 'complete', score: 70, at: t(0) }])

      // Act
      const e = applyActivity(before, course, { moduleId: watch.id, kind: 'start', at: t(5) })

      // Assess
      expect(e.modules[quiz.id]).toEqual(before.modules[quiz.id])
      expect(e.modules[extra.id]).toBeUndefined()
    })

    it('changes nothing in the enrollment it was given (a new value is returned)', () => {
      // Prepare
      const before = enrollment()
      const copy = structuredClone(before)

      // Act
      applyActivity(before, course, { moduleId: watch.id, kind: 'complete', timeSpentSeconds: 9, at: t(0) })

      // Assess
      expect(before).toEqual(copy)
    })
  })

  describe('time spent', () => {
    it('adds time to the module and to the enrollment with every activity that reports it', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'start', at: t(0) },
        { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 45, at: t(1) },
        { moduleId: watch.id, kind: 'complete', timeSpentSeconds: 15, at: t(2) },
        { moduleId: quiz.id, kind: 'progress', timeSpentSeconds: 30, at: t(3) },
        { moduleId: extra.id, kind: 'progress', timeSpentSeconds: 5, at: t(4) },
      ])

      // Assess
      expect(e.modules[watch.id]?.timeSpentSeconds).toBe(60)
      expect(e.modules[quiz.id]?.timeSpentSeconds).toBe(30)
      expect(e.modules[extra.id]?.timeSpentSeconds).toBe(5)
      expect(e.timeSpentSeconds).toBe(95)
    })

    it('adds nothing when an activity reports no time', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 20, at: t(0) },
        { moduleId: watch.id, kind: 'progress', at: t(1) },
        { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 0, at: t(2) },
      ])

      // Assess
      expect(e.modules[watch.id]?.timeSpentSeconds).toBe(20)
      expect(e.timeSpentSeconds).toBe(20)
    })
  })

  describe('scores', () => {
    it('records a score reported with progress and keeps it when later activity reports none', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'progress', score: 40, at: t(0) },
        { moduleId: watch.id, kind: 'progress', at: t(1) },
        { moduleId: watch.id, kind: 'progress', score: null, at: t(2) },
      ])

      // Assess
      expect(e.modules[watch.id]?.score).toBe(40)
      expect(e.score).toBe(40)
    })

    it('takes the mean of every module score reported, optional modules included, to two decimals', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'complete', score: 70, at: t(0) },
        { moduleId: quiz.id, kind: 'progress', score: 71, at: t(1) },
        { moduleId: extra.id, kind: 'complete', score: 71, at: t(2) },
      ])

      // Assess
      expect(e.score).toBe(70.67)
    })

    it('keeps the enrollment score null while no module reported a score', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'complete', at: t(0) },
        { moduleId: quiz.id, kind: 'progress', timeSpentSeconds: 10, at: t(1) },
      ])

      // Assess
      expect(e.score).toBeNull()
    })

    it('counts a score of zero as a reported score, not as none', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'complete', score: 0, at: t(0) },
        { moduleId: quiz.id, kind: 'complete', score: 100, at: t(1) },
      ])

      // Assess
      expect(e.modules[watch.id]?.score).toBe(0)
      expect(e.score).toBe(50)
    })
  })

  describe('quiz attempts (as the learner service applies them)', () => {
    it('leaves a quiz in progress without a score after a failing attempt, then completes it with the passing score', () => {
      // Act
      const failed = play([
        { moduleId: quiz.id, kind: 'progress', score: null, timeSpentSeconds: 40, at: t(0) },
      ])
      const passed = applyActivity(failed, course, {
        moduleId: quiz.id,
        kind: 'complete',
        score: 90,
        timeSpentSeconds: 20,
        at: t(30),
      })

      // Assess
      expect(failed.modules[quiz.id]).toMatchObject({
        status: 'in_progress',
        score: null,
        timeSpentSeconds: 40,
      })
      expect(failed.progressPercent).toBe(0)
      expect(passed.modules[quiz.id]).toEqual({
        status: 'completed',
        score: 90,
        timeSpentSeconds: 60,
        startedAt: t(0),
        completedAt: t(30),
        lastActivityAt: t(30),
      })
      expect(passed.progressPercent).toBe(50)
    })

    it('keeps a passed quiz completed with its passing score when a later attempt fails', () => {
      // Prepare
      const passed = play([{ moduleId: quiz.id, kind: 'complete', score: 90, at: t(0) }])

      // Act
      const e = applyActivity(passed, course, {
        moduleId: quiz.id,
        kind: 'progress',
        score: null,
        timeSpentSeconds: 25,
        at: t(10),
      })

      // Assess
      expect(e.modules[quiz.id]).toMatchObject({
        status: 'completed',
        score: 90,
        completedAt: t(0),
        timeSpentSeconds: 25,
      })
      expect(e.progressPercent).toBe(50)
    })
  })

  describe('completion of a module', () => {
    it('keeps the first completion time and adds the time when a completed module is completed again', () => {
      // Prepare
      const once = play([{ moduleId: watch.id, kind: 'complete', timeSpentSeconds: 30, at: t(0) }])

      // Act
      const twice = applyActivity(once, course, {
        moduleId: watch.id,
        kind: 'complete',
        timeSpentSeconds: 10,
        at: t(20),
      })

      // Assess
      expect(twice.modules[watch.id]).toMatchObject({
        status: 'completed',
        completedAt: t(0),
        timeSpentSeconds: 40,
        lastActivityAt: t(20),
      })
      expect(twice.progressPercent).toBe(once.progressPercent)
      expect(twice.timeSpentSeconds).toBe(40)
    })

    it.each(['start', 'progress'] as const)(
      'never reopens a completed module when the learner sends %s afterwards',
      (kind) => {
        // Prepare
        const done = play([{ moduleId: watch.id, kind: 'complete', at: t(0) }])

        // Act
        const e = applyActivity(done, course, { moduleId: watch.id, kind, at: t(5) })

        // Assess
        expect(e.modules[watch.id]).toMatchObject({ status: 'completed', completedAt: t(0), startedAt: t(0) })
        expect(e.progressPercent).toBe(50)
      },
    )

    it('leaves the enrollment active when the last required module is completed (completion is its own step)', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'complete', at: t(0) },
        { moduleId: quiz.id, kind: 'complete', at: t(1) },
      ])

      // Assess
      expect(e).toMatchObject({ status: 'active', completedAt: null, progressPercent: 100 })
      expect(isComplete(course, e.modules)).toBe(true)
    })
  })

  describe('out-of-order activity (a backdated --at, an offline package syncing late)', () => {
    it('never moves last activity backwards when an earlier activity arrives after a later one', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 10, at: t(30) },
        { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 10, at: t(10) },
      ])

      // Assess
      expect(e.lastActivityAt).toBe(t(30))
      expect(e.modules[watch.id]?.lastActivityAt).toBe(t(30))
      expect(e.timeSpentSeconds).toBe(20)
    })

    it('keeps the earliest start when an earlier activity arrives after a later one', () => {
      // Act
      const e = play([
        { moduleId: watch.id, kind: 'progress', at: t(30) },
        { moduleId: watch.id, kind: 'start', at: t(10) },
      ])

      // Assess
      expect(e.startedAt).toBe(t(10))
      expect(e.modules[watch.id]?.startedAt).toBe(t(10))
    })
  })
})

describe('Function: progressPercent', () => {
  it('counts only required modules when the course has any: an optional module never moves it', () => {
    // Prepare
    const onlyOptional = { [extra.id]: completed(t(0)) }
    const oneRequired = { ...onlyOptional, [watch.id]: completed(t(1)) }
    const allRequired = { [watch.id]: completed(t(0)), [quiz.id]: completed(t(1)) }

    // Act
    const percents = [onlyOptional, oneRequired, allRequired].map((p) => progressPercent(course, p))

    // Assess
    expect(percents).toEqual([0, 50, 100])
  })

  it('counts every module, rounded to an integer, when no module is required', () => {
    // Prepare
    const optional = [module('a', false), module('b', false), module('c', false)]

    // Act
    const one = progressPercent(optional, { a: completed(t(0)) })
    const two = progressPercent(optional, { a: completed(t(0)), b: completed(t(1)) })

    // Assess
    expect([one, two]).toEqual([33, 67])
  })

  it('ignores modules in progress and progress of modules the course no longer has', () => {
    // Prepare
    const progress = {
      [watch.id]: { ...notStarted, status: 'in_progress' as const },
      removed: completed(t(0)),
    }

    // Act
    const percent = progressPercent(course, progress)

    // Assess
    expect(percent).toBe(0)
  })

  it('answers 0 when the course has no module', () => {
    // Act
    const percent = progressPercent([], {})

    // Assess
    expect(percent).toBe(0)
  })
})

describe('Function: isComplete', () => {
  it('is complete when every required module is completed, whatever the optional ones', () => {
    // Act
    const done = isComplete(course, { [watch.id]: completed(t(0)), [quiz.id]: completed(t(1)) })
    const missingOne = isComplete(course, { [watch.id]: completed(t(0)), [extra.id]: completed(t(1)) })

    // Assess
    expect([done, missingOne]).toEqual([true, false])
  })

  it('needs every module when no module is required', () => {
    // Prepare
    const optional = [module('a', false), module('b', false)]

    // Act
    const partly = isComplete(optional, { a: completed(t(0)) })
    const fully = isComplete(optional, { a: completed(t(0)), b: completed(t(1)) })

    // Assess
    expect([partly, fully]).toEqual([false, true])
  })

  it('is never complete when the course has no module', () => {
    // Act
    const complete = isComplete([], {})

    // Assess
    expect(complete).toBe(false)
  })
})

describe('Function: enrollmentScore', () => {
  it('answers null when no module reported a score', () => {
    // Act
    const score = enrollmentScore({ a: notStarted, b: completed(t(0)) })

    // Assess
    expect(score).toBeNull()
  })
})

describe('Function: completeEnrollment', () => {
  it('completes with the time, 100 %, pass, a freed seat and a numbered certificate expiring after the validity', () => {
    // Prepare
    const seated = enrollment({ holdsSeat: true, progressPercent: 100, score: 85 })

    // Act
    const e = completeEnrollment(seated, '2026-03-01T10:10:00.000Z', 'cert-1', 30)

    // Assess
    expect(e).toMatchObject({
      status: 'completed',
      completedAt: '2026-03-01T10:10:00.000Z',
      progressPercent: 100,
      passFail: 'pass',
      score: 85,
      holdsSeat: false,
      certificateId: 'cert-1',
      certificateNumber: 'CERT-2026-0F1E2D3C4B',
      certificateExpiresAt: '2026-03-31T10:10:00.000Z',
      updatedAt: '2026-03-01T10:10:00.000Z',
    })
  })

  it('issues a certificate without expiry when the course sets no validity', () => {
    // Act
    const e = completeEnrollment(enrollment(), t(0), 'cert-2', null)

    // Assess
    expect(e.certificateExpiresAt).toBeNull()
  })
})

describe('Function: progressView', () => {
  it('lists every module of the course in order, not started, for a new enrollment', () => {
    // Act
    const view = progressView(enrollment(), course)

    // Assess
    expect(view).toEqual({
      enrollmentId: enrollment().id,
      overallProgressPercent: 0,
      timeSpentSeconds: 0,
      lastActivityAt: null,
      modules: course.map((m) => ({ module: m, progress: notStarted })),
    })
  })

  it('shows each module’s own progress and the enrollment’s time and last activity', () => {
    // Prepare
    const e = play([
      { moduleId: watch.id, kind: 'progress', timeSpentSeconds: 60, at: t(0) },
      { moduleId: quiz.id, kind: 'complete', score: 75, timeSpentSeconds: 30, at: t(5) },
    ])

    // Act
    const view = progressView(e, course)

    // Assess
    expect(view).toMatchObject({ overallProgressPercent: 50, timeSpentSeconds: 90, lastActivityAt: t(5) })
    expect(view.modules.map((m) => [m.module.id, m.progress.status, m.progress.score])).toEqual([
      [watch.id, 'in_progress', null],
      [quiz.id, 'completed', 75],
      [extra.id, 'not_started', null],
    ])
  })

  it('reads 100 % for a completed enrollment even when a module was added after completion', () => {
    // Prepare
    const e = completeEnrollment(
      play([
        { moduleId: watch.id, kind: 'complete', at: t(0) },
        { moduleId: quiz.id, kind: 'complete', at: t(1) },
      ]),
      t(1),
      'cert-3',
      null,
    )
    const grown = [...course, module('m-new', true, 3)]

    // Act
    const view = progressView(e, grown)

    // Assess
    expect(view.overallProgressPercent).toBe(100)
    expect(view.modules.at(-1)?.progress).toEqual(notStarted)
  })

  it('reads 100 % for an imported completion that has no module progress', () => {
    // Prepare
    const imported = enrollment({ status: 'completed', source: 'import', completedAt: t(0), modules: {} })

    // Act
    const view = progressView(imported, course)

    // Assess
    expect(view.overallProgressPercent).toBe(100)
    expect(view.modules.every((m) => m.progress.status === 'not_started')).toBe(true)
  })

  it('leaves out progress of a module the course no longer has', () => {
    // Prepare
    const e = enrollment({ modules: { removed: completed(t(0)), [watch.id]: completed(t(1)) } })

    // Act
    const view = progressView(e, course)

    // Assess
    expect(view.modules.map((m) => m.module.id)).toEqual([watch.id, quiz.id, extra.id])
  })

  it.each(['dropped', 'expired', 'waitlisted', 'pending_approval'] as const)(
    'computes the percent from required modules for a %s enrollment',
    (status) => {
      // Prepare
      const e = enrollment({ status, modules: { [watch.id]: completed(t(0)) } })

      // Act
      const view = progressView(e, course)

      // Assess
      expect(view.overallProgressPercent).toBe(50)
    },
  )
})
