/**
 * E-mail that is actually sent: the outbox's notifications reach the notifications worker through
 * the relay and its queue, are rendered in the recipient's locale and land in the local sink that
 * `lms mail list` reads (in AWS they go through Amazon SES instead).
 */
import { randomBytes, randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { handler as notificationWorker } from '../../functions/workers/notification-delivery/handler.ts'
import { updateTenant } from '../../shared/services/tenants/tenants-service.ts'
import { listOutboxNotifications } from '../../shared/store/outbox/outbox-store.ts'
import { lms } from '../helpers/cli.ts'
import { call } from '../helpers/http.ts'
import { course, enroll, user } from '../helpers/learning.ts'
import { sqsEvent, sqsRecord } from '../helpers/sqs-event.ts'
import { newTenant } from '../helpers/tenants.ts'
import { until } from '../helpers/until.ts'

interface ListedMail {
  id: string
  to: string
  subject: string
  template: string
  locale: string
  text: string
  sent_at: string
}

async function mailList(...filters: string[]): Promise<ListedMail[]> {
  const out = await lms('mail', 'list', ...filters)
  expect(out.code, out.stdout).toBe(0)
  return out.json.data as ListedMail[]
}

/** Waits until the filtered list holds at least `count` mails. */
const mailsFor = (count: number, ...filters: string[]) =>
  until(
    () => mailList(...filters),
    (l) => l.length >= count,
  )

describe('Notifications: e-mail through the worker and the local sink', () => {
  it('sends the enrollment confirmation to the learner, in English or in French by the learner’s locale', async () => {
    // Prepare
    const t = await newTenant()
    const anglophone = await user(t, { locale: 'en' })
    const francophone = await user(t, { locale: 'fr-CA', first_name: 'Élodie' })
    const c = await course(t)

    // Act
    await enroll(t, anglophone.id, c.id)
    await enroll(t, francophone.id, c.id)
    const en = await mailsFor(1, '--tenant', t.slug, '--to', anglophone.email)
    const fr = await mailsFor(1, '--tenant', t.slug, '--to', francophone.email.toUpperCase())

    // Assess
    expect(en).toHaveLength(1)
    expect(en[0]).toMatchObject({
      to: anglophone.email,
      template: 'enrollment_confirmation',
      locale: 'en',
      subject: `You are enrolled in ${c.title}`,
    })
    expect(en[0]?.text).toContain(`Hello Ada,\n\nYou are now enrolled in ${c.title}.`)
    expect(fr[0]).toMatchObject({
      to: francophone.email,
      template: 'enrollment_confirmation',
      locale: 'fr-CA',
      subject: `Inscription confirmée : ${c.title}`,
    })
    expect(fr[0]?.text).toContain(`Bonjour Élodie,\n\nVous êtes maintenant inscrit au cours ${c.title}.`)
    expect(Date.parse(fr[0]?.sent_at ?? '')).not.toBeNaN()
    const both = await mailList('--tenant', t.slug, '--template', 'enrollment_confirmation')
    // Newest first.
    expect(both.map((m) => m.to)).toEqual([francophone.email, anglophone.email])
  })

  it('forwards a contact request to the operators’ address', async () => {
    // Prepare
    const marker = randomBytes(6).toString('hex')

    // Act
    const reply = await call('POST', '/api/v1/contact', {
      body: {
        name: 'Grace',
        email: 'grace@example.com',
        subject: `Demo ${marker}`,
        message: 'Line 1\nLine 2',
      },
      host: 'www.localhost',
      localAddress: `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`,
    })
    const mails = await until(
      () => mailList('--to', 'operators@lms.test', '--template', 'contact_request'),
      (l) => l.some((m) => m.subject.includes(marker)),
    )

    // Assess
    expect(reply.status).toBe(202)
    const mail = mails.find((m) => m.subject.includes(marker))
    expect(mail).toMatchObject({
      to: 'operators@lms.test',
      locale: 'en',
      subject: `Contact request: Demo ${marker}`,
    })
    expect(mail?.text).toContain('Name: Grace\nE-mail: grace@example.com\nCompany: -')
    expect(mail?.text).toContain(`Line 1\nLine 2\n\nReference: ${reply.body.data.id}`)
  })

  it('sends each usage alert to every active owner and admin, and to no one else', async () => {
    // Prepare
    const t = await newTenant()
    const owner = await user(t, { role: 'owner', locale: 'fr-CA' })
    const admin = await user(t, { role: 'admin' })
    await user(t, { role: 'admin', is_active: false })
    await user(t, { role: 'manager' })
    await user(t, { role: 'learner' })
    await updateTenant(t.slug, { monthlyApiCap: 40 })

    // Act: past 80% and 100% of the month's cap, then the 15-minute check (run now)
    await Promise.all(Array.from({ length: 45 }, () => t.api.get('/api/v1/courses')))
    const job = await lms('jobs', 'run', 'usage-alerts')
    expect(job.code, job.stdout).toBe(0)
    const mails = await mailsFor(4, '--tenant', t.slug, '--template', 'usage_alert')

    // Assess
    expect(mails).toHaveLength(4)
    const sent = mails.map((m) => `${m.to} ${m.subject}`).sort()
    const name = t.tenant.name
    expect(sent).toEqual(
      [
        `${owner.email} ${name} : 80 % des requêtes API du mois utilisées`,
        `${owner.email} ${name} : 100 % des requêtes API du mois utilisées`,
        `${admin.email} ${name}: 80% of this month's API requests used`,
        `${admin.email} ${name}: 100% of this month's API requests used`,
      ].sort(),
    )
  })

  it('sends nothing twice when the queue hands the same notification out again', async () => {
    // Prepare: a confirmation, sent once through the relay, the queue and the worker
    const t = await newTenant()
    const learner = await user(t)
    const c = await course(t)
    await enroll(t, learner.id, c.id)
    await mailsFor(1, '--tenant', t.slug, '--to', learner.email)
    const [notification] = await listOutboxNotifications(t.tenant)

    // Act: the same message twice more, as SQS may redeliver it. The worker runs in-process so
    // the test knows when it is done: the shared queue is never empty while other tests run.
    const body = JSON.stringify({ tenantId: t.tenant.id, notification })
    const outcomes = [
      await notificationWorker(sqsEvent(sqsRecord(body, { receiveCount: 2, queue: 'lms-notifications' }))),
      await notificationWorker(sqsEvent(sqsRecord(body, { receiveCount: 3, queue: 'lms-notifications' }))),
    ]

    // Assess: both copies handled (none comes back), still one mail
    expect(outcomes).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }])
    expect(await mailList('--tenant', t.slug, '--to', learner.email)).toHaveLength(1)
  })

  it('refuses an unknown template filter with a usage error', async () => {
    const out = await lms('mail', 'list', '--template', 'newsletter')

    expect(out.code).not.toBe(0)
    expect(out.json.error.message).toContain('--template takes enrollment_confirmation')
  })
})

describe('CLI: lms mail preview', () => {
  it('renders the samples of an e-mail in the locale asked for, with both parts', async () => {
    // Act
    const out = await lms('mail', 'preview', '--template', 'usage_alert', '--locale', 'fr-CA')
    const wrong = await lms('mail', 'preview', '--locale', 'de')

    // Assess
    expect(out.code, out.stdout).toBe(0)
    const samples = out.json.data as {
      variant: string
      locale: string
      subject: string
      text: string
      html: string
    }[]
    expect(samples.map((s) => [s.variant, s.locale, s.subject])).toEqual([
      ['80%', 'fr-CA', 'Acme Logistics : 80 % des requêtes API du mois utilisées'],
      ['100%', 'fr-CA', 'Acme Logistics : 100 % des requêtes API du mois utilisées'],
    ])
    expect(samples[0]?.text).toMatch(/^Bonjour Sam,\n\n/)
    expect(samples[0]?.html).toContain('<html lang="fr-CA">')
    expect(wrong.code).not.toBe(0)
    expect(wrong.json.error.message).toBe('--locale takes en, fr-CA')
  })
})
