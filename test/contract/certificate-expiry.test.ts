/**
 * Certificate expiry (decision 0047): `lms jobs run certificate-expiry --at` sends
 * `certificate.expiring` 30 and 7 days before a certificate expires and `certificate.expired` at
 * its expiry, each once however often the job runs, with the learner's e-mail in their language;
 * the compliance report's expiring_soon at the same instant names the same learners.
 */
import { describe, expect, it } from 'vitest'
import { createEndpoint } from '../../shared/services/deliveries/webhooks-service.ts'
import { recordActivity } from '../../shared/services/enrollments/learner-service.ts'
import { lms } from '../helpers/cli.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { startReceiver, type Received } from '../helpers/receiver.ts'
import { newTenant, type TestTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

const DAY = 86_400_000
const before = (iso: string, days: number) => new Date(Date.parse(iso) - days * DAY).toISOString()

interface Envelope {
  event: string
  data: Record<string, unknown>
}
const envelopes = (got: readonly Received[]): Envelope[] => got.map((r) => JSON.parse(r.raw.toString('utf8')))

async function runJob(at: string) {
  const ran = await lms('jobs', 'run', 'certificate-expiry', '--at', at)
  expect(ran.code, ran.stdout).toBe(0)
  return ran.json as { expiring: number; expired: number }
}

async function mails(t: TestTenant, to: string, template: string, count: number) {
  return until(
    async () => {
      const out = await lms('mail', 'list', '--tenant', t.slug, '--to', to, '--template', template)
      return out.json.data as { subject: string; locale: string; text: string }[]
    },
    (l) => l.length >= count,
  )
}

const expiringSoonAt = async (t: TestTenant, asOf: string) => {
  const r = await t.api.get(`/api/v1/reports/compliance?status=expiring_soon&as_of=${asOf}`)
  expect(r.status).toBe(200)
  return r.body.data.map((row: { user_id: string }) => row.user_id).sort()
}

describe('CLI: lms jobs run certificate-expiry', () => {
  it('sends expiring at 30 and 7 days and expired once each, e-mails the learner in their language, and agrees with the compliance report', async () => {
    // Prepare: two learners complete a course whose certificates last a year, at the same instant
    const t = await newTenant()
    const r = await startReceiver()
    const subscribed = ['certificate.expiring', 'certificate.expired', 'user.created']
    await createEndpoint(t.tenant, `${r.url}/hook`, subscribed)
    const c = await course(t, {
      modules: [{ title: 'V', module_type: 'video' }],
      settings: { certificateValidityDays: 365 },
    })
    const anglophone = await user(t, { locale: 'en' })
    const francophone = await user(t, { locale: 'fr-CA', first_name: 'Élodie' })
    await r.waitFor(2)
    const certificateEvents = async () =>
      envelopes(r.requests).filter((e) => e.event.startsWith('certificate.'))
    const completedAt = new Date().toISOString()
    for (const learner of [anglophone, francophone]) {
      const e = await enroll(t, learner.id, c.id)
      await recordActivity(t.tenant, e.id, {
        moduleId: c.modules[0]?.id ?? '',
        kind: 'complete',
        at: completedAt,
      })
    }
    const expiresAt = new Date(Date.parse(completedAt) + 365 * DAY).toISOString()
    const learners = [anglophone.id, francophone.id].sort()

    // Act + Assess: 30 days before, one expiring notice each; the report agrees
    const at30 = before(expiresAt, 30)
    expect((await runJob(at30)).expiring).toBeGreaterThanOrEqual(2)
    const first = await until(certificateEvents, (l) => l.length >= 2)
    expect(first.map((e) => e.event)).toEqual(['certificate.expiring', 'certificate.expiring'])
    expect(first.map((e) => e.data.userId).sort()).toEqual(learners)
    expect(first[0]?.data).toMatchObject({ courseId: c.id, expiresAt, daysLeft: 30 })
    expect(typeof first[0]?.data.certificateId).toBe('string')
    expect(await expiringSoonAt(t, at30)).toEqual(learners)

    // Act + Assess: the same instant again, then 7 days before: only the 7-day notices follow
    await runJob(at30)
    const at7 = before(expiresAt, 7)
    await runJob(at7)
    await runJob(at7)
    await until(certificateEvents, (l) => l.length >= 4)
    expect(await expiringSoonAt(t, at7)).toEqual(learners)

    // Act + Assess: at the expiry, expired once; nothing expiring_soon any more
    await runJob(expiresAt)
    await runJob(expiresAt)
    await until(certificateEvents, (l) => l.length >= 6)
    // A last event, written after every run: once it has arrived, a notice sent twice would have too.
    const last = await user(t)
    await until(
      async () => envelopes(r.requests),
      (l) => l.some((e) => e.event === 'user.created' && e.data.userId === last.id),
    )
    const kinds = (await certificateEvents()).map(
      (e) => `${e.event}:${String(e.data.daysLeft ?? e.data.expiredAt)}`,
    )
    expect(kinds.sort()).toEqual(
      [
        'certificate.expiring:30',
        'certificate.expiring:30',
        'certificate.expiring:7',
        'certificate.expiring:7',
        `certificate.expired:${expiresAt}`,
        `certificate.expired:${expiresAt}`,
      ].sort(),
    )
    expect(await expiringSoonAt(t, expiresAt)).toEqual([])

    // Assess: e-mails in each learner's language
    const en = await mails(t, anglophone.email, 'certificate_expiring', 2)
    expect(en.map((m) => m.subject).sort()).toEqual([
      `Your ${c.title} certificate expires in 30 days`,
      `Your ${c.title} certificate expires in 7 days`,
    ])
    expect(en[0]).toMatchObject({ locale: 'en' })
    const fr = await mails(t, francophone.email, 'certificate_expired', 1)
    expect(fr[0]).toMatchObject({ locale: 'fr-CA', subject: `Votre certificat du cours ${c.title} a expiré` })
    expect(fr[0]?.text).toContain(`Bonjour Élodie,`)
    const frExpiring = await mails(t, francophone.email, 'certificate_expiring', 2)
    expect(frExpiring.map((m) => m.subject)).toContain(
      `Votre certificat du cours ${c.title} expire dans 7 jours`,
    )
  })

  it('sends a run that missed the 30-day notice only the 7-day one, and nothing more at a later run in the same window', async () => {
    // Prepare
    const t = await newTenant()
    const r = await startReceiver()
    await createEndpoint(t.tenant, `${r.url}/hook`, ['certificate.expiring', 'user.created'])
    const c = await course(t, {
      modules: [{ title: 'V', module_type: 'video' }],
      settings: { certificateValidityDays: 90 },
    })
    const learner = await user(t)
    await r.waitFor(1)
    const completedAt = new Date().toISOString()
    const e = await enroll(t, learner.id, c.id)
    await recordActivity(t.tenant, e.id, {
      moduleId: c.modules[0]?.id ?? '',
      kind: 'complete',
      at: completedAt,
    })
    const expiresAt = new Date(Date.parse(completedAt) + 90 * DAY).toISOString()

    // Act: the first run is 5 days before the expiry, the next 3 days before
    await runJob(before(expiresAt, 5))
    await runJob(before(expiresAt, 3))
    const last = await user(t)
    await until(
      async () => envelopes(r.requests),
      (l) => l.some((x) => x.event === 'user.created' && x.data.userId === last.id),
    )

    // Assess
    const notices = envelopes(r.requests).filter((x) => x.event === 'certificate.expiring')
    expect(notices.map((x) => x.data)).toEqual([
      expect.objectContaining({ userId: learner.id, courseId: c.id, expiresAt, daysLeft: 5 }),
    ])
  })
})
