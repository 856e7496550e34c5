/**
 * Writes docs/email-samples.md: one sample of each e-mail in every locale (subject and plain-text
 * body, and one HTML part), rendered by the worker's own templates from made-up data
 * (shared/domain/notifications/samples.ts). Run `npx tsx bench/email-samples.ts` after changing
 * a template; a unit test fails while the page is out of date.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderSamples, type RenderedSample } from '../shared/domain/notifications/samples.ts'

export const EMAIL_SAMPLES_PATH = fileURLToPath(new URL('../docs/email-samples.md', import.meta.url))

const fence = (lang: string, body: string) => `\`\`\`${lang}\n${body.replace(/\n+$/, '')}\n\`\`\``

function sampleSection(en: RenderedSample, others: readonly RenderedSample[]): string {
  const parts = [`### ${en.template} (${en.variant})`]
  for (const s of [en, ...others]) {
    parts.push(`**${s.locale}** · Subject: ${s.subject}`, fence('text', s.text))
  }
  return parts.join('\n\n')
}

export function emailSamplesPage(): string {
  const all = renderSamples()
  const groups = new Map<string, RenderedSample[]>()
  for (const s of all)
    groups.set(`${s.template}/${s.variant}`, [...(groups.get(`${s.template}/${s.variant}`) ?? []), s])
  const sections = [...groups.values()].map(([first, ...rest]) => sampleSection(first!, rest))
  const html = all.find((s) => s.template === 'waitlist_promoted' && s.locale === 'fr-CA')
  return `${[
    '# E-mail samples',
    '',
    '<!-- Written by `npx tsx bench/email-samples.ts` from shared/domain/notifications/samples.ts; do not edit by hand. -->',
    '',
    'One of each notification the product sends, in `en` and `fr-CA`, rendered by the templates the',
    'notifications worker uses (`shared/domain/notifications/`), from made-up data. Each e-mail has',
    'a plain-text part (below) and an HTML part made of the same paragraphs, every value escaped',
    '(one shown at the end). `lms mail preview [--template T] [--locale L]` prints the same samples',
    'with both parts as JSON; `lms mail list` shows what the local stack actually sent.',
    '',
    'The locale is the recipient’s own (`users.locale`); an address without a user (an export’s',
    'requester gives its own in the data) is `en`. Contact requests go to the operators’ address',
    '(`LMS_OPERATOR_EMAIL`) in English; their `fr-CA` rendering exists but is not sent today.',
    '',
    ...sections.flatMap((s) => [s, '']),
    `## The HTML part (waitlist_promoted, fr-CA)`,
    '',
    fence('html', html?.html ?? ''),
    '',
  ].join('\n')}`
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(EMAIL_SAMPLES_PATH, emailSamplesPage())
  console.log(JSON.stringify({ written: EMAIL_SAMPLES_PATH }))
}
