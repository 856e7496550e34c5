/**
 * Route group `integrations`: a tenant's own webhook endpoints and record-store connection over
 * the API (api-additions section 4; admin scope), through the services the operator CLI uses, so
 * both see the same endpoints and connection. The one route group that seals secrets (decision 0041).
 */
import {
  CreateEndpointInput,
  RotateSecretInput,
  UpdateEndpointInput,
} from '../../shared/domain/webhooks/webhook.ts'
import { ReplayInput } from '../../shared/domain/webhooks/webhook-replay.ts'
import { ConnectionInput } from '../../shared/domain/xapi/connection.ts'
import { parseBody, Uuid } from '../../shared/domain/validation.ts'
import { listMeta, paging } from '../../shared/http/list-query.ts'
import { created, envelope, noContent, ok } from '../../shared/http/responses.ts'
import { pathId, route } from '../../shared/http/route.ts'
import { httpStack } from '../../shared/http/stack.ts'
import * as lrs from '../../shared/services/deliveries/lrs-connection-service.ts'
import { startReplay } from '../../shared/services/deliveries/webhook-replay-service.ts'
import * as webhooks from '../../shared/services/deliveries/webhooks-service.ts'
import {
  toConnectionResource,
  toEndpointResource,
  toEndpointWithSecret,
  toReplayResource,
} from './representation.ts'

const actorOf = (keyId: string) => `api:${keyId}`
const endpointId = (input: { path: Readonly<Record<string, string | undefined>> }) =>
  pathId(input, 'id', 'webhook_endpoint', Uuid)

export const listEndpoints = route('GET /api/v1/webhooks/endpoints', async ({ tenant, query }) => {
  const page = paging(query)
  const all = await webhooks.listLiveEndpoints(tenant)
  const items = all
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
    .slice(page.offset, page.offset + page.perPage)
  return ok(items.map(toEndpointResource), listMeta(page, all.length))
})

export const createEndpoint = route('POST /api/v1/webhooks/endpoints', async ({ tenant, body, keyId }) => {
  const input = parseBody(CreateEndpointInput, body)
  const made = await webhooks.createEndpoint(tenant, input.url, input.events, {
    description: input.description ?? null,
    actor: actorOf(keyId),
  })
  return created(toEndpointWithSecret(made))
})

export const getEndpoint = route('GET /api/v1/webhooks/endpoints/{id}', async ({ tenant, ...input }) =>
  ok(toEndpointResource(await webhooks.getLiveEndpoint(tenant, endpointId(input)))),
)

export const updateEndpoint = route(
  'PATCH /api/v1/webhooks/endpoints/{id}',
  async ({ tenant, body, keyId, ...input }) => {
    const id = endpointId(input)
    const changes = parseBody(UpdateEndpointInput, body, {})
    const endpoint = await webhooks.updateEndpoint(
      tenant,
      id,
      {
        url: changes.url,
        events: changes.events,
        description: changes.description,
        isActive: changes.is_active,
      },
      actorOf(keyId),
    )
    return ok(toEndpointResource(endpoint))
  },
)

export const deleteEndpoint = route(
  'DELETE /api/v1/webhooks/endpoints/{id}',
  async ({ tenant, keyId, ...input }) => {
    await webhooks.deleteEndpoint(tenant, endpointId(input), actorOf(keyId))
    return noContent()
  },
)

export const rotateSecret = route(
  'POST /api/v1/webhooks/endpoints/{id}/rotate-secret',
  async ({ tenant, body, keyId, ...input }) => {
    const id = endpointId(input)
    const { expire_previous_in_seconds } = parseBody(RotateSecretInput, body, {})
    return ok(
      toEndpointWithSecret(
        await webhooks.rotateSecret(tenant, id, expire_previous_in_seconds, actorOf(keyId)),
      ),
    )
  },
)

export const replay = route(
  'POST /api/v1/webhooks/endpoints/{id}/replay',
  async ({ tenant, body, keyId, ...input }) => {
    const id = endpointId(input)
    const request = parseBody(ReplayInput, body)
    return envelope(202, toReplayResource(await startReplay(tenant, id, request, actorOf(keyId))))
  },
)

export const getConnection = route('GET /api/v1/xapi/connection', async ({ tenant }) =>
  ok(toConnectionResource(await lrs.requireConnection(tenant))),
)

export const putConnection = route('PUT /api/v1/xapi/connection', async ({ tenant, body, keyId }) => {
  const input = parseBody(ConnectionInput, body)
  const connection = await lrs.connect(
    tenant,
    {
      endpoint: input.endpoint,
      // Blank keeps the saved one, as the settings form's empty field does.
      key: input.key || undefined,
      secret: input.secret || undefined,
      identityMode: input.identity_mode,
    },
    actorOf(keyId),
  )
  return ok(toConnectionResource(connection))
})

export const deleteConnection = route('DELETE /api/v1/xapi/connection', async ({ tenant, keyId }) => {
  await lrs.disconnect(tenant, actorOf(keyId))
  return noContent()
})

export const testConnection = route('POST /api/v1/xapi/connection/test', async ({ tenant }) => {
  const result = await lrs.testConnection(tenant)
  return ok({ ok: result.ok, status: result.httpStatus })
})

export const handler = httpStack([
  listEndpoints,
  createEndpoint,
  getEndpoint,
  updateEndpoint,
  deleteEndpoint,
  rotateSecret,
  replay,
  getConnection,
  putConnection,
  deleteConnection,
  testConnection,
])
