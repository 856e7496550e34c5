/** The query parameters of the course routes that the domain does not declare. */
import * as v from 'valibot'
import { enrollmentStatuses } from '../../shared/domain/enrollments/enrollment.ts'

export const CourseEnrollmentsQuery = v.object({
  status: v.optional(v.picklist(enrollmentStatuses, `must be one of ${enrollmentStatuses.join(', ')}`)),
})
