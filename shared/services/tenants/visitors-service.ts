/**
 * What a visitor without a key may do on the corporate site: sign up (a free tenant and its owner)
 * and write to the company. Both are limited per client address at the gateway (route table).
 */
import { randomUUID } from 'node:crypto'
import type { ContactInput, ContactRequest } from '../../domain/contact.ts'
import { config } from '../../config.ts'
import { ConflictError } from '../../domain/errors.ts'
import { newNotification, type Notification } from '../../domain/events.ts'
import { RESERVED_SLUGS, type SignupInput } from '../../domain/tenants/signup.ts'
import type { Tenant } from '../../domain/tenants/tenant.ts'
import type { User } from '../../domain/users/user.ts'
import { insertContactRequest, listContactRequests } from '../../store/tenants/contact-store.ts'
import { createTenantWithOwner } from './tenants-service.ts'

const nowIso = () => new Date().toISOString()

export async function signUp(input: SignupInput, at = nowIso()): Promise<{ tenant: Tenant; owner: User }> {
  // The same answer as a taken slug: which names are reserved is nobody's business.
  if (RESERVED_SLUGS.has(input.slug)) {
    throw new ConflictError('tenant.slug_taken', `A tenant with slug ${input.slug} exists`)
  }
  return createTenantWithOwner(
    { slug: input.slug, plan: 'free', kind: 'customer', name: input.organization_name },
    {
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      locale: input.locale ?? 'en',
    },
    at,
  )
}

export async function submitContact(input: ContactInput, at = nowIso()): Promise<ContactRequest> {
  const request: ContactRequest = {
    id: randomUUID(),
    name: input.name,
    email: input.email,
    company: input.company || null,
    subject: input.subject || null,
    message: input.message,
    receivedAt: at,
  }
  await insertContactRequest(request, operatorNotification(request))
  return request
}

/** The request forwarded to the operators' address, recorded with it (none when no address is configured). */
function operatorNotification(r: ContactRequest): Notification | undefined {
  if (!config.operatorEmail) return undefined
  const data = {
    contactId: r.id,
    name: r.name,
    email: r.email,
    company: r.company,
    subject: r.subject,
    message: r.message,
    receivedAt: r.receivedAt,
  }
  return newNotification('contact_request', null, data, r.receivedAt, config.operatorEmail)
}

export function listContact(limit: number): Promise<ContactRequest[]> {
  return listContactRequests(limit)
}
