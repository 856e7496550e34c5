/**
 * Route group `webhooks`: the deliveries view and retry-now over the API, for integrators who
 * debug their receiver (an addition to the spec, whose view is in the admin UI; admin scope).
 * Endpoints themselves stay in the settings (the operator CLI): their secret is shown once there.
 */
import { ListDeliveriesFilters } from '../../shared/domain/webhooks/webhook.ts'
import { NotFoundError } from '../../shared/domain/errors.ts'
import { parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as webhooks from '../../shared/services/deliveries/webhooks-service.ts'
import { toDeliveryResource } from './representation.ts'

export const listDeliveries = route('GET /api/v1/webhooks/deliveries', async ({ tenant, query }) => {
  const filters = parseOrThrow(ListDeliveriesFilters, query)
  const page = paging(query)
  const { items, total } = await webhooks.listDeliveriesPage(tenant, {
    ...filters,
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items.map(toDeliveryResource), listMeta(page, total))
})

export const getDelivery = route('GET /api/v1/webhooks/deliveries/{id}', async (input) => {
  const id = pathId(input, 'id', 'webhook_delivery', Uuid)
  const delivery = await webhooks.getDeliveryView(input.tenant, id)
  if (!delivery) throw new NotFoundError('webhook_delivery')
  return ok(toDeliveryResource(delivery))
})

export const retryDelivery = route('POST /api/v1/webhooks/deliveries/{id}/retry', async (input) => {
  const id = pathId(input, 'id', 'webhook_delivery', Uuid)
  return created(toDeliveryResource(await webhooks.retryNow(input.tenant, id, `api:${input.keyId}`)))
})

export const handler = httpStack([listDeliveries, getDelivery, retryDelivery])
