/** `npm run client:generate`: writes src/schema.d.ts from the in-memory OpenAPI document. */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { schemaFile, schemaSource } from './schema-source.ts'

await writeFile(schemaFile, await schemaSource())
process.stdout.write(`wrote ${fileURLToPath(schemaFile)}\n`)
