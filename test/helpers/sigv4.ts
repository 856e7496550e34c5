/**
 * Checks a SigV4-signed request as the service would: signs it again from what arrived (its signed
 * headers only, with the same credentials) and compares the signatures and the body's hash. For
 * the requests the product signs itself (test/unit/crypto, test/unit/queue).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { Sha256Js } from '@smithy/core/checksum'
import { SignatureV4 } from '@smithy/signature-v4'

/** A request as a local server received it. */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string }

export async function verifies(
  r: Received,
  credentials: Credentials,
): Promise<{ service: string; region: string; ok: boolean }> {
  const auth = String(r.headers.authorization)
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(
      auth,
    )
  if (!m) return { service: '', region: '', ok: false }
  const [, , , region = '', svc = '', signedHeaders = '', signature] = m
  const names = signedHeaders.split(';')
  const headers = Object.fromEntries(names.map((n) => [n, String(r.headers[n])]))
  const amzDate = String(r.headers['x-amz-date'])
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  )
  const signer = new SignatureV4({ service: svc, region, credentials, sha256: Sha256Js })
  const again = await signer.sign(
    {
      method: r.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: r.url,
      query: {},
      headers,
      body: r.body,
    },
    { signingDate, signableHeaders: new Set(names) },
  )
  // The signed payload hash must be the body's own (the signer trusts the header when present).
  const bodyHash = new Sha256Js()
  bodyHash.update(new TextEncoder().encode(r.body))
  const hashMatches =
    r.headers['x-amz-content-sha256'] === undefined ||
    r.headers['x-amz-content-sha256'] === Buffer.from(await bodyHash.digest()).toString('hex')
  const signatureMatches = String(again.headers.authorization).endsWith(`Signature=${signature}`)
  return { service: svc, region, ok: hashMatches && signatureMatches }
}
