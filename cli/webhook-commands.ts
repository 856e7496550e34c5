/** `lms webhook ...`: endpoints, the deliveries view and retry now. */
import { toDeliveryResource } from '../functions/webhooks/representation.ts'
import { toEndpointResource, toEndpointWithSecret } from '../functions/integrations/representation.ts'
import { deliveryStatuses, type DeliveryStatus } from '../shared/domain/webhooks/webhook.ts'
import * as webhooks from '../shared/services/deliveries/webhooks-service.ts'
import { required, UsageError } from './args.ts'
import { tenantOf, command, type Command } from './flags.ts'

export const webhookCommands: Record<string, Command> = {
  'webhook create': command(
    '--tenant S --url U --events e1,e2',
    'create a webhook endpoint (prints its signing secret once)',
    async (f) => {
      const events = required(f, 'events')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
      return toEndpointWithSecret(
        await webhooks.createEndpoint(await tenantOf(f), required(f, 'url'), events),
      )
    },
  ),
  'webhook list': command('--tenant S', 'the live webhook endpoints', async (f) => ({
    data: (await webhooks.listLiveEndpoints(await tenantOf(f))).map(toEndpointResource),
  })),
  'webhook delete': command('--tenant S --id ID', 'delete a webhook endpoint', async (f) => {
    const id = required(f, 'id')
    return { id, deleted_at: await webhooks.deleteEndpoint(await tenantOf(f), id) }
  }),
  'webhook deliveries': command(
    '--tenant S [--status pending|delivered|failed] [--event E]',
    'the webhook deliveries, with the exact payload',
    async (f) => {
      const status = f.get('status')
      if (status !== undefined && !(deliveryStatuses as readonly string[]).includes(status)) {
        throw new UsageError(`--status takes ${deliveryStatuses.join(', ')}`)
      }
      const list = await webhooks.listDeliveries(await tenantOf(f), {
        status: status as DeliveryStatus | undefined,
        event: f.get('event'),
      })
      return { data: list.map(toDeliveryResource) }
    },
  ),
  'webhook retry': command(
    '--tenant S --delivery ID',
    'deliver again now: a new delivery with the identical body',
    async (f) =>
      toDeliveryResource(await webhooks.retryNow(await tenantOf(f), required(f, 'delivery'), 'operator-cli')),
  ),
}
