/** The query parameters of the enrollment routes that the domain does not declare. */
import * as v from 'valibot'
import { Uuid } from '../../shared/domain/validation.ts'

export const CompletionsQuery = v.object({ user_id: v.optional(Uuid) })
