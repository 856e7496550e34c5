import { describe, expect, it } from 'vitest'
import {
  CONTEXT_CLAIM,
  isLearner,
  isReadable,
  membersOf,
  membershipServiceOf,
  nextLink,
  NRPS_CLAIM,
} from '../../../shared/domain/lti/nrps.ts'

const page = 'https://lms.example.com/contexts/7/memberships?page=1'

describe('NRPS: the Link header', () => {
  it('finds rel="next" among other relations, quoted or not, and resolves a relative target', () => {
    expect(nextLink('<https://p.example/m?page=2>; rel="next"', page)).toBe('https://p.example/m?page=2')
    expect(
      nextLink(
        '<https://p.example/m?page=9>; rel="last", <https://p.example/m?page=2&a=1,2>; rel=next',
        page,
      ),
    ).toBe('https://p.example/m?page=2&a=1,2')
    expect(nextLink('</contexts/7/memberships?page=2>; title="x; y"; rel="prev next"', page)).toBe(
      'https://lms.example.com/contexts/7/memberships?page=2',
    )
    expect(nextLink(['<https://p.example/a>; rel="prev"', '<https://p.example/b>; REL="Next"'], page)).toBe(
      'https://p.example/b',
    )
  })

  it('finds none without a header, without rel next, or with a target that is not http(s)', () => {
    expect(nextLink(undefined, page)).toBeUndefined()
    expect(nextLink('', page)).toBeUndefined()
    expect(nextLink('<https://p.example/m?page=1>; rel="prev"', page)).toBeUndefined()
    expect(nextLink('<https://p.example/m?page=2>; rel="nextpage"', page)).toBeUndefined()
    expect(nextLink('<javascript:alert(1)>; rel="next"', page)).toBeUndefined()
  })
})

describe('NRPS: the service claim', () => {
  const claims = (service: unknown, context: unknown = { id: 'ctx-1' }) => ({
    [NRPS_CLAIM]: service,
    [CONTEXT_CLAIM]: context,
  })

  it('offers the memberships URL of a 2.0 service with the launch context', () => {
    expect(
      membershipServiceOf(
        claims({ context_memberships_url: 'https://p.example/ctx/1/m', service_versions: ['1.0', '2.0'] }),
      ),
    ).toEqual({ contextId: 'ctx-1', membershipsUrl: 'https://p.example/ctx/1/m' })
  })

  it('offers none without 2.0, without a context, or with a URL that is not http(s)', () => {
    const url = 'https://p.example/ctx/1/m'
    expect(membershipServiceOf({})).toBeUndefined()
    expect(
      membershipServiceOf(claims({ context_memberships_url: url, service_versions: ['1.0'] })),
    ).toBeUndefined()
    expect(membershipServiceOf(claims({ context_memberships_url: url }))).toBeUndefined()
    expect(
      membershipServiceOf(claims({ context_memberships_url: url, service_versions: ['2.0'] }, null)),
    ).toBeUndefined()
    expect(
      membershipServiceOf(
        claims({ context_memberships_url: 'file:///etc/passwd', service_versions: ['2.0'] }),
      ),
    ).toBeUndefined()
  })
})

describe('NRPS: members', () => {
  it('reads each member as launch claims, Active unless the status says otherwise', () => {
    const members = membersOf({
      members: [
        { user_id: 'u1', roles: ['Learner'], email: 'a@example.com', given_name: 'A', family_name: 'B' },
        { user_id: 'u2', roles: ['Learner'], status: 'Inactive' },
        { user_id: 'u3', status: 'Deleted' },
        { roles: ['Learner'] },
      ],
    })
    expect(members?.map((m) => (isReadable(m) ? [m.userId, m.active] : [m.userId]))).toEqual([
      ['u1', true],
      ['u2', false],
      ['u3', false],
      [null],
    ])
    const [first] = members ?? []
    expect(first && isReadable(first) ? first.claims : undefined).toMatchObject({
      sub: 'u1',
      email: 'a@example.com',
      given_name: 'A',
      family_name: 'B',
    })
  })

  it('refuses a body that is not a membership container', () => {
    expect(membersOf(null)).toBeUndefined()
    expect(membersOf({ members: 'x' })).toBeUndefined()
    expect(membersOf([])).toBeUndefined()
  })

  it('counts the context role Learner in its full, short and LIS v1 forms, and nothing else', () => {
    expect(isLearner(['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'])).toBe(true)
    expect(isLearner(['Learner'])).toBe(true)
    expect(isLearner(['urn:lti:role:ims/lis/Learner'])).toBe(true)
    expect(isLearner(['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'])).toBe(false)
    expect(isLearner(['http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper'])).toBe(false)
    expect(isLearner(['http://purl.imsglobal.org/vocab/lis/v2/institution/person#Learner'])).toBe(false)
    expect(isLearner([])).toBe(false)
  })
})
