/**
 * Self-service sign-up: an organization gets a tenant on the free plan (the only plan without a
 * billing step) and its first account, the owner. Paid plans are set by the billing orchestrator.
 */
import * as v from 'valibot'
import { Email, LocaleInput, Name } from '../users/user-schemas.ts'
import { OrganizationName, SLUG_PATTERN } from './tenant.ts'

/** Sub-domains the product or its operators use, never a tenant's. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'www',
  'api',
  'app',
  'admin',
  'auth',
  'billing',
  'docs',
  'help',
  'lti',
  'mail',
  'status',
  'support',
  'demo',
])

export const SignupInput = v.object({
  organization_name: OrganizationName,
  slug: v.pipe(
    v.string(),
    v.trim(),
    v.toLowerCase(),
    v.regex(SLUG_PATTERN, 'must be 1 to 63 lowercase letters, digits or inner hyphens'),
  ),
  email: Email,
  first_name: Name,
  last_name: Name,
  locale: v.optional(LocaleInput),
})
export type SignupInput = v.InferOutput<typeof SignupInput>
