import { describe, expect, it } from 'vitest'
import { ValidationError } from '../../../shared/domain/errors.ts'
import { MAX_STATEMENT_BYTES, unitStatement } from '../../../shared/domain/xapi/cmi5.ts'
import {
  actorFor,
  buildStatement,
  statementIdFor,
  statementIdOf,
  statementSourceOf,
  type StatementSource,
} from '../../../shared/domain/xapi/statement.ts'
import { newEvent, type DomainEvent, type EventType } from '../../../shared/domain/events.ts'

const PORTAL = 'https://acme.lms.example.com'
const NOW = '2025-03-01T10:00:00.000Z'
const IDS = { enrollmentId: 'enr-1', userId: 'user-1', courseId: 'course-1' }
const MODULE_ACTIVITY = `${PORTAL}/xapi/activities/module/mod-1`
const COURSE_ACTIVITY = `${PORTAL}/xapi/activities/course/course-1`
const CMI5_CATEGORY = { objectType: 'Activity', id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' }
const SESSION_IRI = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid'
const LAUNCHMODE_IRI = 'https://w3id.org/xapi/cmi5/context/extensions/launchmode'
const UNIT_STATEMENT_ID = '1b9f7c1e-3a3d-4c5e-9f1a-2b3c4d5e6f70'

const actor = actorFor('anonymous', PORTAL, IDS.userId, undefined)

function sourceOf(event: DomainEvent): StatementSource {
  const source = statementSourceOf(event)
  if (!source) throw new Error(`no statement source for ${event.event}`)
  return source
}

/** Builds the statement an event makes, as the relay would, and returns it with its parsed body. */
function build(type: EventType, data: Record<string, unknown>) {
  const event = newEvent(type, { ...IDS, ...data }, NOW)
  const source = sourceOf(event)
  const statementId = statementIdOf(source, event.id)
  const built = buildStatement({ source, statementId, timestamp: NOW, portal: PORTAL, actor })
  const body = JSON.parse(built.body) as Record<string, unknown> & {
    result?: Record<string, unknown>
    context: Record<string, unknown> & { contextActivities?: Record<string, unknown> }
  }
  return { event, source, statementId, built, body }
}

function validationErrorOf(fn: () => unknown): ValidationError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ValidationError) return e
    throw e
  }
  throw new Error('expected a ValidationError')
}

describe('Function: buildStatement (module.completed)', () => {
  it('reports a failed module as completed with success false, its score and completion', () => {
    // Arrange
    const data = { moduleId: 'mod-1', score: 40, success: false }

    // Act
    const { built, body } = build('module.completed', data)

    // Assert
    expect(built.verb).toBe('completed')
    expect(body.verb).toEqual({
      id: 'http://adlnet.gov/expapi/verbs/completed',
      display: { 'en-US': 'completed' },
    })
    expect(body.result).toEqual({
      score: { scaled: 0.4, raw: 40, min: 0, max: 100 },
      success: false,
      completion: true,
    })
  })

  it('leaves success out of the result when the module reported none', () => {
    // Arrange
    const data = { moduleId: 'mod-1', score: 80 }

    // Act
    const { body } = build('module.completed', data)

    // Assert
    expect(body.result).not.toHaveProperty('success')
    expect(body.result).toMatchObject({ completion: true })
  })

  it('says "satisfied" for a cmi5 module, with the cmi5 category and the course as parent', () => {
    // Arrange
    const data = { moduleId: 'mod-1', moduleType: 'cmi5' }

    // Act
    const { built, body } = build('module.completed', data)

    // Assert
    expect(built.verb).toBe('satisfied')
    expect(built.objectId).toBe(MODULE_ACTIVITY)
    expect(body.verb).toEqual({
      id: 'https://w3id.org/xapi/adl/verbs/satisfied',
      display: { 'en-US': 'satisfied' },
    })
    expect(body.object).toMatchObject({ objectType: 'Activity', id: MODULE_ACTIVITY })
    expect(body.context.contextActivities?.category).toContainEqual(CMI5_CATEGORY)
    expect(body.context.contextActivities?.parent).toEqual([{ objectType: 'Activity', id: COURSE_ACTIVITY }])
  })

  it('gives a non-cmi5 module no category', () => {
    // Arrange
    const data = { moduleId: 'mod-1', moduleType: 'scorm' }

    // Act
    const { built, body } = build('module.completed', data)

    // Assert
    expect(built.verb).toBe('completed')
    expect(body.context.contextActivities).not.toHaveProperty('category')
  })
})

describe('Function: buildStatement (cmi5.launched)', () => {
  it('says "launched" with the cmi5 category, session id, launch mode and no result', () => {
    // Arrange
    const data = { moduleId: 'mod-1', sessionId: 'session-42' }

    // Act
    const { built, body } = build('cmi5.launched', data)

    // Assert
    expect(built.verb).toBe('launched')
    expect(body.verb).toMatchObject({ id: 'http://adlnet.gov/expapi/verbs/launched' })
    expect(body.object).toMatchObject({ id: MODULE_ACTIVITY })
    expect(body.context.contextActivities?.category).toContainEqual(CMI5_CATEGORY)
    expect(body.context.extensions).toEqual({ [SESSION_IRI]: 'session-42', [LAUNCHMODE_IRI]: 'Normal' })
    expect(body.context.registration).toBe(IDS.enrollmentId)
    expect(body.context.platform).toBe('lms')
    expect(body).not.toHaveProperty('result')
  })
})

describe('Function: buildStatement (cmi5.statement, forwarded)', () => {
  const unitSent: Record<string, unknown> = {
    id: UNIT_STATEMENT_ID,
    actor: { objectType: 'Agent', account: { homePage: 'https://unit.example', name: 'someone' } },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { objectType: 'Activity', id: 'https://unit.example/activities/page-3' },
    result: { duration: 'PT1M30S', extensions: { 'https://unit.example/ext/progress': 50 } },
    context: {
      registration: IDS.enrollmentId,
      contextActivities: { category: [CMI5_CATEGORY] },
      extensions: { [SESSION_IRI]: 'session-42' },
    },
    timestamp: '2025-03-01T09:59:00.000Z',
  }

  /** As the learner service records it: the checked statement, kept as JSON text in the event. */
  const eventData = (sent: Record<string, unknown>) => ({
    moduleId: 'mod-1',
    statement: JSON.stringify(unitStatement(JSON.stringify(sent))),
  })

  it('forwards every key but the actor as sent, in the same order, with our actor', () => {
    // Arrange
    const data = eventData(unitSent)

    // Act
    const { built, body, statementId } = build('cmi5.statement', data)

    // Assert
    for (const key of Object.keys(unitSent).filter((k) => k !== 'actor')) {
      expect(body[key], key).toEqual(unitSent[key])
    }
    expect(body.actor).toEqual(actor)
    expect(body.actor).toEqual({ objectType: 'Agent', account: { homePage: PORTAL, name: IDS.userId } })
    expect(Object.keys(body)).toEqual(Object.keys(unitSent))
    expect(statementId).toBe(UNIT_STATEMENT_ID)
    expect(body.id).toBe(UNIT_STATEMENT_ID)
    expect(built.verb).toBe('experienced')
    expect(built.objectId).toBe('https://unit.example/activities/page-3')
  })

  it('gives a statement without an id the one fixed by its event', () => {
    // Arrange
    const withoutId = Object.fromEntries(Object.entries(unitSent).filter(([k]) => k !== 'id'))
    const data = eventData(withoutId)

    // Act
    const { event, body, statementId } = build('cmi5.statement', data)

    // Assert
    expect(statementId).toBe(statementIdFor(event.id))
    expect(body.id).toBe(statementIdFor(event.id))
    for (const key of Object.keys(withoutId).filter((k) => k !== 'actor')) {
      expect(body[key], key).toEqual(withoutId[key])
    }
    expect(body.actor).toEqual(actor)
    expect(Object.keys(body).filter((k) => k !== 'id')).toEqual(Object.keys(withoutId))
  })
})

describe('Function: unitStatement', () => {
  const valid = {
    actor: { mbox: 'mailto:x@unit.example' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: 'https://unit.example/activities/page-3' },
    'https://unit.example/unknown': { kept: true },
  }

  it("drops the unit's actor and keeps unknown keys", () => {
    // Arrange
    const json = JSON.stringify(valid)

    // Act
    const statement = unitStatement(json)

    // Assert
    // The unit's actor is dropped (a null placeholder at most, which keeps the key's place).
    expect(statement.actor ?? null).toBeNull()
    expect(statement['https://unit.example/unknown']).toEqual({ kept: true })
    expect(statement.verb).toEqual(valid.verb)
  })

  it.each([
    ['invalid JSON', '{"verb": '],
    ['a JSON array', JSON.stringify([valid])],
    ['a body over 64 KB', JSON.stringify({ ...valid, padding: 'x'.repeat(MAX_STATEMENT_BYTES) })],
  ])('refuses %s, naming statement', (_case, json) => {
    // Act
    const error = validationErrorOf(() => unitStatement(json))

    // Assert
    expect(error.field).toBe('statement')
  })

  it('refuses exactly 64 KB + 1 byte but accepts 64 KB', () => {
    // Arrange
    const base = JSON.stringify({ ...valid, padding: '' })
    const fill = MAX_STATEMENT_BYTES - Buffer.byteLength(base, 'utf8')
    const atCap = JSON.stringify({ ...valid, padding: 'x'.repeat(fill) })
    const overCap = JSON.stringify({ ...valid, padding: 'x'.repeat(fill + 1) })

    // Act / Assert
    expect(() => unitStatement(atCap)).not.toThrow()
    expect(validationErrorOf(() => unitStatement(overCap)).field).toBe('statement')
  })

  it.each([
    ['verb.id is missing', { ...valid, verb: { display: { 'en-US': 'x' } } }, 'statement.verb.id'],
    ['verb.id is not an IRI', { ...valid, verb: { id: 'experienced' } }, 'statement.verb.id'],
    ['object.id is missing', { ...valid, object: { objectType: 'Activity' } }, 'statement.object.id'],
    ['id is not a UUID', { ...valid, id: 'not-a-uuid' }, 'statement.id'],
  ])('names the field when %s', (_case, statement, field) => {
    // Act
    const error = validationErrorOf(() => unitStatement(JSON.stringify(statement)))

    // Assert
    expect(error.field).toBe(field)
  })
})
