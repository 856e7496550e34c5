/**
 * SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the SDK's SigV4 signer
 * (`@smithy/signature-v4`) asks for: the requests the product signs itself (Secrets Manager's
 * GetSecretValue, the exports' download URLs) use it instead of a service client.
 */
import { createHash, createHmac, type BinaryLike } from 'node:crypto'

type Data = string | ArrayBuffer | ArrayBufferView

export class Sha256 {
  private readonly hash
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret))
  }
  update(data: Data): void {
    this.hash.update(bytes(data))
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()))
  }
}

const bytes = (data: Data): BinaryLike =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data)
