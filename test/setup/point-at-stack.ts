/** Test files that call services directly (to arrange data) use the same stores as the gateway. */
import './stack-env.ts'
import { afterEach } from 'vitest'
import { closeOpenReceivers } from '../helpers/receiver.ts'
import { stopOpenStacks } from '../helpers/stack.ts'

// Receivers, record stores and stacks a test started are closed after it, whether it passed or not.
afterEach(closeOpenReceivers)
afterEach(stopOpenStacks)
