/**
 * The product's S3 client, created once per container: export files and module packages are
 * written and pre-signed through it (shared/store/files/export-files.ts, shared/store/files/content-store.ts).
 * Path-style addresses where an endpoint is configured (config.s3PathStyle).
 */
import { S3Client } from '@aws-sdk/client-s3'
import { config } from '../config.ts'
import { clientOptions, transferCall } from './settings.ts'

export const s3 = new S3Client({ ...clientOptions(transferCall), forcePathStyle: config.s3PathStyle })
