import { describe, expect, it } from 'vitest'
import {
  CLAIM,
  claimProblem,
  emailClaim,
  namesFromClaims,
  roleFromLtiRoles,
  syntheticEmail,
} from '../../../shared/domain/lti/lti.ts'

const valid = {
  sub: 's',
  [CLAIM.messageType]: 'LtiResourceLinkRequest',
  [CLAIM.version]: '1.3.0',
  [CLAIM.deploymentId]: 'd',
}

describe('LTI claims', () => {
  it('accepts the LtiResourceLink family on launch and only LtiDeepLinkingRequest on deep link', () => {
    expect(claimProblem('launch', valid)).toBeUndefined()
    expect(claimProblem('deep_link', valid)).toMatch(/message_type/)
    expect(
      claimProblem('deep_link', { ...valid, [CLAIM.messageType]: 'LtiDeepLinkingRequest' }),
    ).toBeUndefined()
  })

  it('names the first missing or wrong claim', () => {
    expect(claimProblem('launch', { ...valid, [CLAIM.messageType]: undefined })).toMatch(/message_type/)
    expect(claimProblem('launch', { ...valid, [CLAIM.version]: '1.1' })).toMatch(/version/)
    expect(claimProblem('launch', { ...valid, [CLAIM.deploymentId]: '' })).toMatch(/deployment_id/)
  })

  it('maps Instructor and Administrator roles (context or institution) to instructor, anything else to learner', () => {
    expect(roleFromLtiRoles(['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'])).toBe(
      'instructor',
    )
    expect(
      roleFromLtiRoles(['http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator']),
    ).toBe('instructor')
    expect(roleFromLtiRoles(['Instructor'])).toBe('instructor')
    expect(roleFromLtiRoles(['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'])).toBe('learner')
    expect(
      roleFromLtiRoles(['http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant']),
    ).toBe('learner')
    expect(roleFromLtiRoles(undefined)).toBe('learner')
  })

  it('takes names from given_name and family_name, falling back to name', () => {
    expect(namesFromClaims({ given_name: ' Ada ', family_name: 'Lovelace', name: 'X Y' })).toEqual({
      first: 'Ada',
      last: 'Lovelace',
    })
    expect(namesFromClaims({ name: 'Grace Brewster Hopper' })).toEqual({
      first: 'Grace Brewster',
      last: 'Hopper',
    })
    expect(namesFromClaims({})).toEqual({ first: 'LTI', last: 'User' })
  })

  it('lowercases the e-mail claim and derives a reserved-domain address without one', () => {
    expect(emailClaim({ email: ' Ada@Example.COM ' })).toBe('ada@example.com')
    expect(emailClaim({ email: 'not-an-address' })).toBeUndefined()
    const email = syntheticEmail('https://platform.example', 'user-1')
    expect(email).toMatch(/^lti-[0-9a-f]{32}@lti\.invalid$/)
    expect(syntheticEmail('https://platform.example', 'user-1')).toBe(email)
    expect(syntheticEmail('https://platform.example', 'user-2')).not.toBe(email)
    expect(syntheticEmail('https://other.example', 'user-1')).not.toBe(email)
  })
})
