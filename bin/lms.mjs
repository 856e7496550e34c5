#!/usr/bin/env node
// The operator CLI `lms`: runs cli/main.ts through tsx, on the project's Node.
import { register } from 'tsx/esm/api'

register()
await import('../cli/main.ts')
