import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EMAIL_SAMPLES_PATH, emailSamplesPage } from '../../../../bench/email-samples.ts'
import { notificationTemplates } from '../../../../shared/domain/events.ts'
import { renderSamples } from '../../../../shared/domain/notifications/samples.ts'
import { locales } from '../../../../shared/domain/users/user.ts'

describe('Functions: e-mail samples (lms mail preview, docs/email-samples.md)', () => {
  it('renders every template in every locale, with a subject, a text part and an HTML part', () => {
    const samples = renderSamples()

    for (const template of notificationTemplates) {
      for (const locale of locales) {
        const one = samples.find((s) => s.template === template && s.locale === locale)
        expect(one?.subject, `${template} ${locale}`).toMatch(/\S/)
        expect(one?.text).toMatch(/\S/)
        expect(one?.html).toContain(`<html lang="${locale}">`)
      }
    }
    expect(samples.filter((s) => s.template === 'usage_alert').map((s) => [s.variant, s.locale])).toEqual([
      ['80%', 'en'],
      ['80%', 'fr-CA'],
      ['100%', 'en'],
      ['100%', 'fr-CA'],
    ])
  })

  it('renders only what is asked for', () => {
    const some = renderSamples({ template: 'waitlist_promoted', locale: 'fr-CA' })

    expect(some.map((s) => [s.template, s.locale])).toEqual([['waitlist_promoted', 'fr-CA']])
    expect(some[0]?.subject).toBe(
      'Une place s’est libérée : vous êtes inscrit au cours Workplace Fire Safety',
    )
  })

  it('keeps docs/email-samples.md as the templates render today (npx tsx bench/email-samples.ts)', () => {
    expect(readFileSync(EMAIL_SAMPLES_PATH, 'utf8')).toBe(emailSamplesPage())
  })
})
