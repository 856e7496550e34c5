/**
 * `node --import tsx local/iam/write-synthesized-stack.ts FILE`: writes the synthesized stack to
 * FILE. Run as a child by policy-cache.ts, so the local stack never loads the CDK itself.
 */
import { writeFileSync } from 'node:fs'
import { synthesize } from './synth-stack.ts'

const out = process.argv[2]
if (!out) throw new Error('usage: write-synthesized-stack.ts FILE')
writeFileSync(out, JSON.stringify(synthesize()))
