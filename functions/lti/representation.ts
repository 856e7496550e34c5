/** The tool's public key set (RFC 7517) as GET /api/v1/lti/.well-known/jwks.json serves it. */
import * as v from 'valibot'

const Jwk = v.looseObject({
  kty: v.optional(v.string()),
  kid: v.optional(v.string()),
  alg: v.optional(v.string()),
  use: v.optional(v.string()),
})

export const JwksSchema = v.object({ keys: v.array(Jwk) })
