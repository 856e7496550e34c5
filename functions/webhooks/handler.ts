/**
 * Route group `webhooks`: the deliveries view and retry-now over the API, for integrators who
 * debug their receiver (an addition to the spec, whose view is in the admin UI; admin scope), and
 * the events API (read scope; decision 0044).
 * Endpoints themselves stay in the settings (the operator CLI): their secret is shown once there.
 */
import { ListEventsFilters } from '../../shared/domain/webhooks/event-list.ts'
import { ListDeliveriesFilters } from '../../shared/domain/webhooks/webhook.ts'
import { NotFoundError } from '../../shared/domain/errors.ts'
import { parseOrThrow, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as webhooks from '../../shared/services/deliveries/webhooks-service.ts'
import * as events from '../../shared/services/outbox/events-service.ts'
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

export const listEvents = route('GET /api/v1/events', async ({ tenant, query }) => {
  const filters = parseOrThrow(ListEventsFilters, query)
  const page = paging(query)
  const { items, total } = await events.listEvents(tenant, {
    ...(filters.type === undefined ? {} : { types: filters.type }),
    ...(filters.created_after === undefined ? {} : { createdAfter: filters.created_after }),
    ...(filters.created_before === undefined ? {} : { createdBefore: filters.created_before }),
    offset: page.offset,
    limit: page.perPage,
  })
  return ok(items, listMeta(page, total))
})

export const getEvent = route('GET /api/v1/events/{id}', async (input) => {
  const id = pathId(input, 'id', 'event', Uuid)
  const event = await events.getEvent(input.tenant, id)
  if (!event) throw new NotFoundError('event')
  return ok(event)
})

export const handler = httpStack([listDeliveries, getDelivery, retryDelivery, listEvents, getEvent])
