/**
 * Webhook endpoints and the record-store connection as the API and the CLI show them: never a
 * secret, sealed or not, apart from a new signing secret in the one answer that makes it.
 */
import * as v from 'valibot'
import { eventTypes } from '../../shared/domain/events.ts'
import type { WebhookEndpoint } from '../../shared/domain/webhooks/webhook.ts'
import { identityModes, type LrsConnection } from '../../shared/domain/xapi/connection.ts'

export const EndpointSchema = v.object({
  id: v.string(),
  url: v.string(),
  events: v.array(v.picklist(eventTypes)),
  description: v.nullable(v.string()),
  is_active: v.boolean(),
  created_at: v.string(),
  updated_at: v.string(),
  secret_rotated_at: v.nullable(v.string()),
})

export const EndpointWithSecretSchema = v.object({
  ...EndpointSchema.entries,
  secret: v.pipe(v.string(), v.description('The signing secret: shown in this answer only')),
})

export function toEndpointResource(e: WebhookEndpoint): v.InferOutput<typeof EndpointSchema> {
  return {
    id: e.id,
    url: e.url,
    events: [...e.events],
    description: e.description,
    is_active: e.isActive,
    created_at: e.createdAt,
    updated_at: e.updatedAt ?? e.createdAt,
    secret_rotated_at: e.secretRotatedAt,
  }
}

export function toEndpointWithSecret(made: {
  endpoint: WebhookEndpoint
  secret: string
}): v.InferOutput<typeof EndpointWithSecretSchema> {
  return { ...toEndpointResource(made.endpoint), secret: made.secret }
}

export const ConnectionSchema = v.object({
  endpoint: v.string(),
  key: v.string(),
  identity_mode: v.picklist(identityModes),
  connected_at: v.string(),
  updated_at: v.string(),
})

export function toConnectionResource(c: LrsConnection): v.InferOutput<typeof ConnectionSchema> {
  return {
    endpoint: c.endpoint,
    key: c.key,
    identity_mode: c.identityMode,
    connected_at: c.connectedAt,
    updated_at: c.updatedAt,
  }
}

export const ConnectionTestSchema = v.object({
  ok: v.boolean(),
  status: v.pipe(
    v.nullable(v.number()),
    v.description('The record store’s HTTP status; null when it gave none'),
  ),
})

export const ReplaySchema = v.object({
  replay_id: v.string(),
  queued: v.pipe(
    v.number(),
    v.description(
      'How many events the replay delivers again (the subscribed events of the range when it started)',
    ),
  ),
})

export function toReplayResource(r: {
  replayId: string
  queued: number
}): v.InferOutput<typeof ReplaySchema> {
  return { replay_id: r.replayId, queued: r.queued }
}
