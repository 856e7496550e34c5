/**
 * The exports' download URLs: a pre-signed S3 GET (SigV4, query string), signed here by the SDK's
 * own signer (`@smithy/signature-v4`) with the SDK's default credentials chain, both already in
 * every bundle for DynamoDB, rather than by `@aws-sdk/s3-request-presigner`: the reports group
 * signs these URLs and does nothing else with S3, and the S3 client with its XML protocol and event
 * streams was about 175 KiB of its bundle (docs/decisions/0013-request-path-cost.md). The URL is the
 * one the SDK's presigner makes for the same object, time and credentials
 * (test/unit/store/export-download-url.test.ts compares them).
 */
import { SignatureV4 } from '@smithy/signature-v4'
import { config } from '../config.ts'
import { Sha256 } from '../crypto/node-sha256.ts'
import { emulatorCredentials, lambdaCredentials } from '../aws/credentials.ts'

type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials']

/** The bucket the URLs point into, and who signs them. */
export interface ExportsBucket {
  readonly bucket: string
  readonly region: string
  /** The emulator's address (path-style addresses); absent in AWS. */
  readonly endpoint?: string | undefined
  readonly credentials: Credentials
}

let configured: ExportsBucket | undefined

/** The configured bucket: S3 of the region in AWS, or the local emulator with its fixed keys. */
function fromConfig(): ExportsBucket {
  if (!config.exportsBucket) throw new Error('The exports bucket is not configured')
  configured ??= {
    bucket: config.exportsBucket,
    region: config.region,
    endpoint: config.s3Endpoint,
    credentials: config.s3Endpoint ? emulatorCredentials : lambdaCredentials(),
  }
  return configured
}

/** encodeURIComponent, plus the characters it leaves that S3's signature encodes too (as the SDK does). */
const encode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** A name S3 serves at `<bucket>.s3.<region>...` over HTTPS: lower case, digits and hyphens. */
const virtualHostable = (bucket: string): boolean => /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket)

/** A GET URL that downloads the file as `filename`, valid `seconds`. */
export async function presignExportFile(
  key: string,
  filename: string,
  seconds: number,
  target: ExportsBucket = fromConfig(),
  signingDate = new Date(),
): Promise<string> {
  const emulator = target.endpoint ? new URL(target.endpoint) : undefined
  const virtual = !emulator && virtualHostable(target.bucket)
  const dnsSuffix = target.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'
  const hostname =
    emulator?.hostname ?? `${virtual ? `${target.bucket}.` : ''}s3.${target.region}.${dnsSuffix}`
  const path =
    (emulator?.pathname.replace(/\/$/, '') ?? '') +
    (virtual ? '' : `/${encode(target.bucket)}`) +
    `/${key.split('/').map(encode).join('/')}`
  const signer = new SignatureV4({
    service: 's3',
    region: target.region,
    credentials: target.credentials,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: false,
  })
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: emulator?.protocol ?? 'https:',
      hostname,
      ...(emulator?.port ? { port: Number(emulator.port) } : {}),
      path,
      query: {
        'response-content-disposition': `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`,
        'x-amz-checksum-mode': 'ENABLED',
        'x-id': 'GetObject',
      },
      // Hoisted into the query by the signer; S3 signs a pre-signed URL's payload as unsigned.
      headers: { host: emulator?.host ?? hostname, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn: seconds, signingDate },
  )
  const query = Object.entries(signed.query ?? {})
    .flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => [name, v]) : [[name, value]]))
    .filter((pair): pair is [string, string] => typeof pair[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .join('&')
  return `${emulator?.protocol ?? 'https:'}//${emulator?.host ?? hostname}${path}?${query}`
}
