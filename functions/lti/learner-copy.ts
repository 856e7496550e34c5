/**
 * The words of the learner's course pages in each language a user's `locale` may name: English,
 * and French as written in Canada (spaces before `:` and `%`, as the Office québécois advises).
 */
import type { EnrollmentStatus, ModuleStatus } from '../../shared/domain/enrollments/enrollment.ts'
import type { Locale } from '../../shared/domain/users/user.ts'

export interface LearnerCopy {
  readonly allCourses: string
  readonly modules: string
  readonly noModule: string
  readonly progressLabel: (percent: number) => string
  readonly moduleStatus: Readonly<Record<ModuleStatus, string>>
  readonly required: string
  readonly optional: string
  readonly complete: string
  /** Said instead of the buttons when the enrollment takes no activity. */
  readonly enrollmentStatus: Readonly<Partial<Record<EnrollmentStatus, string>>>
  readonly notEnrolled: string
  readonly enrol: string
  readonly notAllowedTitle: string
  readonly notAllowed: string
  readonly notAvailableTitle: string
  readonly notAvailable: string
  readonly notFoundTitle: string
  readonly notFound: string
}

const en: LearnerCopy = {
  allCourses: 'All courses',
  modules: 'Modules',
  noModule: 'No module yet.',
  progressLabel: (p) => `Progress: ${p}%`,
  moduleStatus: { not_started: 'Not started', in_progress: 'In progress', completed: 'Completed' },
  required: 'Required',
  optional: 'Optional',
  complete: 'Mark as complete',
  enrollmentStatus: {
    completed: 'You have completed this course.',
    pending_approval: 'Your enrollment is waiting for approval.',
    waitlisted: 'You are on the waiting list for this course.',
    expired: 'Your access to this course has expired.',
  },
  notEnrolled: 'You are not enrolled in this course.',
  enrol: 'Enrol',
  notAllowedTitle: 'Not allowed',
  notAllowed: 'This form has expired or did not come from this page. Open the course again and retry.',
  notAvailableTitle: 'Not available',
  notAvailable: 'This cannot be done in this course now.',
  notFoundTitle: 'Not found',
  notFound: 'Course not found',
}

const frCA: LearnerCopy = {
  allCourses: 'Tous les cours',
  modules: 'Modules',
  noModule: 'Aucun module pour l’instant.',
  progressLabel: (p) => `Progression : ${p} %`,
  moduleStatus: { not_started: 'Non commencé', in_progress: 'En cours', completed: 'Terminé' },
  required: 'Obligatoire',
  optional: 'Facultatif',
  complete: 'Marquer comme terminé',
  enrollmentStatus: {
    completed: 'Vous avez terminé ce cours.',
    pending_approval: 'Votre inscription attend une approbation.',
    waitlisted: 'Vous êtes sur la liste d’attente de ce cours.',
    expired: 'Votre accès à ce cours a expiré.',
  },
  notEnrolled: 'Vous n’êtes pas inscrit à ce cours.',
  enrol: 'S’inscrire',
  notAllowedTitle: 'Action refusée',
  notAllowed: 'Ce formulaire a expiré ou ne vient pas de cette page. Rouvrez le cours et réessayez.',
  notAvailableTitle: 'Non disponible',
  notAvailable: 'Cette action n’est pas possible dans ce cours pour l’instant.',
  notFoundTitle: 'Introuvable',
  notFound: 'Cours introuvable',
}

export const learnerCopy: Readonly<Record<Locale, LearnerCopy>> = { en, 'fr-CA': frCA }
