/**
 * What each e-mail says, in each locale: a subject and paragraphs of plain text. render.ts makes
 * the text and HTML parts from them. Canadian French follows its typography: a space before the
 * colon and the percent sign, none before ; ! ?
 */
import type { NotificationTemplate } from '../events.ts'
import type { Locale } from '../users/user.ts'
import type { TemplateData } from './template-data.ts'

export interface CopyContext {
  /** The recipient's first name; null for an explicit address. */
  readonly name: string | null
  /** The tenant's display name; null for the platform's own notifications. */
  readonly tenantName: string | null
}

export interface Copy {
  readonly subject: string
  readonly paragraphs: readonly string[]
}

type Writer<T extends NotificationTemplate> = (data: TemplateData<T>, ctx: CopyContext) => Copy
type LocaleCopy = { readonly [T in NotificationTemplate]: Writer<T> }

const number = (locale: Locale, n: number) => new Intl.NumberFormat(locale).format(n)

/** A date as the locale writes it, in UTC (the day the API's timestamps name). */
const longDate = (locale: Locale, iso: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso))

const reportNames: Record<string, Record<Locale, string>> = {
  completions: { en: 'completions', 'fr-CA': 'des achèvements' },
  enrollments: { en: 'enrollments', 'fr-CA': 'des inscriptions' },
  compliance: { en: 'compliance', 'fr-CA': 'de conformité' },
  user_activity: { en: 'user activity', 'fr-CA': "de l'activité des utilisateurs" },
  course_performance: { en: 'course performance', 'fr-CA': 'du rendement des cours' },
}
const reportName = (type: string, locale: Locale) => reportNames[type]?.[locale] ?? type

const en: LocaleCopy = {
  enrollment_confirmation: (d, c) => {
    const hello = c.name ? `Hello ${c.name},` : 'Hello,'
    if (d.status === 'pending_approval') {
      return {
        subject: `Your enrollment in ${d.courseTitle} is awaiting approval`,
        paragraphs: [
          hello,
          `We received your enrollment in ${d.courseTitle}. It needs an approval first; we will write again once it is decided.`,
        ],
      }
    }
    if (d.status === 'waitlisted') {
      return {
        subject: `You are on the waitlist for ${d.courseTitle}`,
        paragraphs: [
          hello,
          `${d.courseTitle} is full, so you are on its waitlist. We will write as soon as a seat is yours.`,
        ],
      }
    }
    return {
      subject: `You are enrolled in ${d.courseTitle}`,
      paragraphs: [hello, `You are now enrolled in ${d.courseTitle}. You can start whenever you like.`],
    }
  },
  enrollment_approved: (d, c) => ({
    subject: `Your enrollment in ${d.courseTitle} was approved`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      d.status === 'waitlisted'
        ? `Your enrollment in ${d.courseTitle} was approved. The course is full, so you are on its waitlist; we will write as soon as a seat is yours.`
        : `Your enrollment in ${d.courseTitle} was approved. You can start whenever you like.`,
    ],
  }),
  enrollment_denied: (d, c) => ({
    subject: `Your enrollment in ${d.courseTitle} was declined`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      `Your request to enroll in ${d.courseTitle} was declined. Please ask your administrator if you have questions.`,
      ...(d.reason ? [`Reason given: ${d.reason}`] : []),
    ],
  }),
  waitlist_promoted: (d, c) => ({
    subject: `A seat opened up: you are enrolled in ${d.courseTitle}`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      `A seat in ${d.courseTitle} opened up and it is yours: you are now enrolled and can start whenever you like.`,
    ],
  }),
  certificate_expiring: (d, c) => {
    const days = d.daysLeft === 1 ? '1 day' : `${d.daysLeft} days`
    return {
      subject: `Your ${d.courseTitle} certificate expires in ${days}`,
      paragraphs: [
        c.name ? `Hello ${c.name},` : 'Hello,',
        `Your certificate for ${d.courseTitle} expires on ${longDate('en', d.expiresAt)}, in ${days}. Take the course again before then to keep it current.`,
      ],
    }
  },
  certificate_expired: (d, c) => ({
    subject: `Your ${d.courseTitle} certificate has expired`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      `Your certificate for ${d.courseTitle} expired on ${longDate('en', d.expiresAt)}. Take the course again to renew it.`,
    ],
  }),
  usage_alert: (d, c) => ({
    subject: `${c.tenantName ?? 'Your organization'}: ${d.percent}% of this month's API requests used`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      `${c.tenantName ?? 'Your organization'} has made ${number('en', d.used)} of its ${number('en', d.cap)} API requests for ${d.month} (${d.percent}%).`,
      d.percent >= 100
        ? 'Further API requests are refused until the month ends or the plan changes.'
        : 'Requests past the cap will be refused until the month ends; a larger plan raises the cap.',
    ],
  }),
  export_ready: (d, c) => ({
    subject: `Your ${reportName(d.report_type, 'en')} export is ready`,
    paragraphs: [
      c.name ? `Hello ${c.name},` : 'Hello,',
      `The ${reportName(d.report_type, 'en')} export ${d.job_id} (${d.format.toUpperCase()}, ${number('en', d.row_count)} rows) is ready.`,
      'For your data’s safety the file is not attached: download it through the API with this job id.',
    ],
  }),
  contact_request: (d) => ({
    subject: `Contact request: ${d.subject ?? `from ${d.name}`}`,
    paragraphs: [
      `A visitor wrote through the contact form on ${d.receivedAt}.`,
      [
        `Name: ${d.name}`,
        `E-mail: ${d.email}`,
        `Company: ${d.company ?? '-'}`,
        `Subject: ${d.subject ?? '-'}`,
      ].join('\n'),
      d.message,
      `Reference: ${d.contactId}`,
    ],
  }),
}

const frCA: LocaleCopy = {
  enrollment_confirmation: (d, c) => {
    const hello = c.name ? `Bonjour ${c.name},` : 'Bonjour,'
    if (d.status === 'pending_approval') {
      return {
        subject: `Votre inscription au cours ${d.courseTitle} attend une approbation`,
        paragraphs: [
          hello,
          `Nous avons bien reçu votre inscription au cours ${d.courseTitle}. Elle doit d’abord être approuvée; nous vous écrirons dès qu’une décision sera prise.`,
        ],
      }
    }
    if (d.status === 'waitlisted') {
      return {
        subject: `Vous êtes sur la liste d’attente du cours ${d.courseTitle}`,
        paragraphs: [
          hello,
          `Le cours ${d.courseTitle} est complet : vous êtes sur sa liste d’attente. Nous vous écrirons dès qu’une place vous sera attribuée.`,
        ],
      }
    }
    return {
      subject: `Inscription confirmée : ${d.courseTitle}`,
      paragraphs: [
        hello,
        `Vous êtes maintenant inscrit au cours ${d.courseTitle}. Vous pouvez commencer quand vous le souhaitez.`,
      ],
    }
  },
  enrollment_approved: (d, c) => ({
    subject: `Votre inscription au cours ${d.courseTitle} a été approuvée`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      d.status === 'waitlisted'
        ? `Votre inscription au cours ${d.courseTitle} a été approuvée. Le cours est complet : vous êtes sur sa liste d’attente et nous vous écrirons dès qu’une place vous sera attribuée.`
        : `Votre inscription au cours ${d.courseTitle} a été approuvée. Vous pouvez commencer quand vous le souhaitez.`,
    ],
  }),
  enrollment_denied: (d, c) => ({
    subject: `Votre inscription au cours ${d.courseTitle} a été refusée`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      `Votre demande d’inscription au cours ${d.courseTitle} a été refusée. Adressez-vous à votre administrateur pour toute question.`,
      ...(d.reason ? [`Motif indiqué : ${d.reason}`] : []),
    ],
  }),
  waitlist_promoted: (d, c) => ({
    subject: `Une place s’est libérée : vous êtes inscrit au cours ${d.courseTitle}`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      `Une place s’est libérée dans le cours ${d.courseTitle} et elle est à vous : vous êtes maintenant inscrit et pouvez commencer quand vous le souhaitez.`,
    ],
  }),
  certificate_expiring: (d, c) => {
    const days = d.daysLeft === 1 ? '1 jour' : `${d.daysLeft} jours`
    return {
      subject: `Votre certificat du cours ${d.courseTitle} expire dans ${days}`,
      paragraphs: [
        c.name ? `Bonjour ${c.name},` : 'Bonjour,',
        `Votre certificat du cours ${d.courseTitle} expire le ${longDate('fr-CA', d.expiresAt)}, dans ${days}. Suivez de nouveau le cours d’ici là pour le garder à jour.`,
      ],
    }
  },
  certificate_expired: (d, c) => ({
    subject: `Votre certificat du cours ${d.courseTitle} a expiré`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      `Votre certificat du cours ${d.courseTitle} a expiré le ${longDate('fr-CA', d.expiresAt)}. Suivez de nouveau le cours pour le renouveler.`,
    ],
  }),
  usage_alert: (d, c) => ({
    subject: `${c.tenantName ?? 'Votre organisation'} : ${d.percent} % des requêtes API du mois utilisées`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      `${c.tenantName ?? 'Votre organisation'} a effectué ${number('fr-CA', d.used)} de ses ${number('fr-CA', d.cap)} requêtes API pour ${d.month} (${d.percent} %).`,
      d.percent >= 100
        ? 'Les requêtes API suivantes sont refusées jusqu’à la fin du mois ou jusqu’à un changement de forfait.'
        : 'Au-delà du plafond, les requêtes seront refusées jusqu’à la fin du mois; un forfait supérieur relève le plafond.',
    ],
  }),
  export_ready: (d, c) => ({
    subject: `Votre exportation ${reportName(d.report_type, 'fr-CA')} est prête`,
    paragraphs: [
      c.name ? `Bonjour ${c.name},` : 'Bonjour,',
      `L’exportation ${reportName(d.report_type, 'fr-CA')} ${d.job_id} (${d.format.toUpperCase()}, ${number('fr-CA', d.row_count)} lignes) est prête.`,
      'Pour la sécurité de vos données, le fichier n’est pas joint : téléchargez-le par l’API avec cet identifiant.',
    ],
  }),
  contact_request: (d) => ({
    subject: `Demande de contact : ${d.subject ?? `de ${d.name}`}`,
    paragraphs: [
      `Un visiteur a écrit par le formulaire de contact le ${d.receivedAt}.`,
      [
        `Nom : ${d.name}`,
        `Courriel : ${d.email}`,
        `Entreprise : ${d.company ?? '-'}`,
        `Objet : ${d.subject ?? '-'}`,
      ].join('\n'),
      d.message,
      `Référence : ${d.contactId}`,
    ],
  }),
}

export const copies: Readonly<Record<Locale, LocaleCopy>> = { en, 'fr-CA': frCA }
