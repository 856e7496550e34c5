/** `lms lrs ...`: the record-store connection, its test, the delivery log and retries. */
import { isOneOf } from '../shared/domain/validation.ts'
import { toConnectionResource } from '../functions/integrations/representation.ts'
import { identityModes } from '../shared/domain/xapi/connection.ts'
import { statementStatuses, type StatementDelivery } from '../shared/domain/xapi/delivery.ts'
import * as lrs from '../shared/services/deliveries/lrs-connection-service.ts'
import * as xapi from '../shared/services/deliveries/xapi-service.ts'
import { required, UsageError } from './args.ts'
import { tenantOf, command, type Command, type Flags } from './flags.ts'

const ACTOR = 'operator-cli'

function statementView(s: StatementDelivery) {
  return {
    id: s.id,
    status: s.status,
    verb: s.verb,
    object_id: s.objectId,
    user_id: s.userId,
    enrollment_id: s.enrollmentId,
    event_id: s.eventId,
    attempts: s.attempts,
    http_status: s.httpStatus,
    reason: s.reason,
    manual_retries: s.manualRetries,
    statement: s.body,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  }
}

/** A flag given with an empty value (`--secret ''`) reads as blank: keep what is saved. */
function blankable(flags: Flags, name: string): string | undefined {
  const v = flags.get(name)
  return v === undefined || v === '' ? undefined : v
}

export const lrsCommands: Record<string, Command> = {
  'lrs connect': command(
    '--tenant S --endpoint URL --key K --secret X [--identity-mode anonymous|email]',
    'connect a learning record store',
    async (f) => {
      const mode = f.get('identity-mode')
      if (mode !== undefined && !isOneOf(identityModes, mode)) {
        throw new UsageError(`--identity-mode takes ${identityModes.join(' or ')}`)
      }
      const connection = await lrs.connect(
        await tenantOf(f),
        {
          endpoint: required(f, 'endpoint'),
          key: blankable(f, 'key'),
          secret: blankable(f, 'secret'),
          identityMode: mode,
        },
        ACTOR,
      )
      return toConnectionResource(connection)
    },
  ),
  'lrs test': command('--tenant S', 'test the record store connection', async (f) => {
    const result = await lrs.testConnection(await tenantOf(f))
    return { ok: result.ok, http_status: result.httpStatus, ...(result.ok ? {} : { reason: result.reason }) }
  }),
  'lrs disconnect': command(
    '--tenant S',
    'delete the record store credentials and stop export',
    async (f) => ({ disconnected_at: await lrs.disconnect(await tenantOf(f), ACTOR) }),
  ),
  'lrs log': command(
    '--tenant S [--status pending|delivered|failed]',
    'the statement delivery log',
    async (f) => {
      const status = f.get('status')
      if (status !== undefined && !isOneOf(statementStatuses, status)) {
        throw new UsageError(`--status takes ${statementStatuses.join(', ')}`)
      }
      return { data: (await xapi.listLog(await tenantOf(f), status)).map(statementView) }
    },
  ),
  'lrs retry': command(
    '--tenant S (--id ID | --all)',
    're-queue one failed statement, or all failed ones',
    async (f) => {
      const id = f.get('id')
      const all = f.get('all') === 'true'
      if ((id === undefined) === !all) throw new UsageError('lrs retry takes --id ID or --all')
      const tenant = await tenantOf(f)
      const requeued = id
        ? await xapi.retryStatement(tenant, id, ACTOR)
        : await xapi.retryAllFailed(tenant, ACTOR)
      return { requeued: requeued.length, ids: requeued }
    },
  ),
}
