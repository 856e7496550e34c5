/**
 * An LTI platform registration and its deployments as the API takes them (api-additions section 4;
 * issue 31). Shapes only: lengths, emptiness and the URLs' safety are the service's checks, the
 * same ones `lms lti register` goes through (lti-registrations-service.ts).
 */
import * as v from 'valibot'

const Text = v.string('must be a string')
const Flag = v.boolean('must be a boolean')

export const CreateLtiRegistrationInput = v.strictObject({
  issuer: Text,
  client_id: Text,
  jwks_url: Text,
  auth_url: Text,
  token_url: v.optional(Text),
  deep_linking: v.optional(Flag),
})
export type CreateLtiRegistrationInput = v.InferOutput<typeof CreateLtiRegistrationInput>

/** Issuer and client id name the registration (its uniqueness guard): a new pair is a new registration. */
export const UpdateLtiRegistrationInput = v.strictObject({
  jwks_url: v.optional(Text),
  auth_url: v.optional(Text),
  token_url: v.optional(v.nullable(Text)),
  deep_linking: v.optional(Flag),
  is_active: v.optional(Flag),
})
export type UpdateLtiRegistrationInput = v.InferOutput<typeof UpdateLtiRegistrationInput>

export const AddLtiDeploymentInput = v.strictObject({
  deployment_id: Text,
  course_id: v.optional(v.nullable(v.pipe(Text, v.uuid('must be a UUID')))),
})
export type AddLtiDeploymentInput = v.InferOutput<typeof AddLtiDeploymentInput>
