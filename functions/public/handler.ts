/**
 * Route group `public`: what a visitor without a key does on the corporate site. Sign-up makes a
 * free tenant and its owner; contact records a message. Both are limited per client address and
 * readable cross-origin by the corporate site (route table).
 */
import type * as v from 'valibot'
import { ContactInput } from '../../shared/domain/contact.ts'
import { SignupInput } from '../../shared/domain/tenants/signup.ts'
import { parseBody } from '../../shared/domain/validation.ts'
import { config } from '../../shared/config.ts'
import { preflight } from '../../shared/http/cors.ts'
import { envelope, created } from '../../shared/http/responses.ts'
import { publicRoute } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import type { ContactReceiptSchema, SignupResultSchema } from './representation.ts'
import { signUp, submitContact } from '../../shared/services/tenants/visitors-service.ts'

export const postSignup = publicRoute('POST /api/v1/signup', async ({ body }) => {
  const { tenant, owner } = await signUp(parseBody(SignupInput, body))
  const data: v.InferOutput<typeof SignupResultSchema> = {
    tenant: { id: tenant.id, slug: tenant.slug, name: tenant.name, plan: tenant.plan, status: tenant.status },
    owner: {
      id: owner.id,
      email: owner.email,
      first_name: owner.firstName,
      last_name: owner.lastName,
      role: owner.role,
    },
    portal_url: `https://${tenant.slug}.${config.serviceHost}`,
  }
  return created(data)
})

export const preflightSignup = publicRoute('OPTIONS /api/v1/signup', async ({ event }) =>
  preflight(event, 'POST, OPTIONS'),
)

/** 202: the message is recorded; someone answers it later. */
export const postContact = publicRoute('POST /api/v1/contact', async ({ body }) => {
  const request = await submitContact(parseBody(ContactInput, body))
  const data: v.InferOutput<typeof ContactReceiptSchema> = { id: request.id, received_at: request.receivedAt }
  return envelope(202, data)
})

export const preflightContact = publicRoute('OPTIONS /api/v1/contact', async ({ event }) =>
  preflight(event, 'POST, OPTIONS'),
)

export const handler = httpStack([postSignup, preflightSignup, postContact, preflightContact])
