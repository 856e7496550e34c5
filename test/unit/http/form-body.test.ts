import { describe, expect, it } from 'vitest'
import { formBody, parseForm } from '../../../shared/http/form-body.ts'
import type { MiddyRequest } from '../../../shared/http/context.ts'
import { autoSubmitForm, esc, loginPage } from '../../../functions/lti/pages.ts'

describe('form bodies (LTI routes)', () => {
  it('reads an url-encoded form into strings, the first of a repeated field', () => {
    expect(parseForm('id_token=a.b.c&state=s%2B1&state=other&empty=')).toEqual({
      id_token: 'a.b.c',
      state: 's+1',
      empty: '',
    })
  })

  it('decodes a base64-encoded body as API Gateway may hand it', () => {
    // Prepare
    const request = {
      event: {
        body: Buffer.from('iss=https%3A%2F%2Fp.example&login_hint=x').toString('base64'),
        isBase64Encoded: true,
      },
    } as unknown as MiddyRequest

    // Act
    formBody().before(request)

    // Assess
    expect(request.event.body).toEqual({ iss: 'https://p.example', login_hint: 'x' })
    expect(request.event.isBase64Encoded).toBe(false)
  })
})

describe('LTI pages', () => {
  it('escapes what they show and never carry X-Frame-Options', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
    const page = loginPage('AccountInactive', "'self' https:")
    expect(page.body).toContain('AccountInactive')
    expect(page.headers?.['x-frame-options']).toBeUndefined()
    expect(page.headers?.['content-security-policy']).toContain("frame-ancestors 'self' https:")
  })

  it('lets the deep-linking form post only to the platform return URL, and run only its own script', () => {
    const page = autoSubmitForm('https://lms.example.com/return?x=1', 'a.b"c', "'self' https:")
    expect(page.body).toContain('action="https://lms.example.com/return?x=1"')
    expect(page.body).toContain('value="a.b&quot;c"')
    const csp = String(page.headers?.['content-security-policy'])
    expect(csp).toContain('form-action https://lms.example.com')
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/)
  })
})
