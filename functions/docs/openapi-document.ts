/**
 * The OpenAPI 3.1 document, built once per container from the route table and the operation rows
 * (operations.ts), whose schemas are the ones the handlers validate with and build their answers
 * from: the document cannot drift from what the API routes, accepts and answers.
 */
import { toJsonSchema } from '@valibot/to-json-schema'
import type * as v from 'valibot'
import { eventCatalog } from '../../shared/domain/webhooks/webhook.ts'
import { eventPayloads } from '../../shared/domain/webhooks/event-payloads.ts'
import { routeKey, routes, type RouteDef } from '../../shared/routes.ts'
import { operations, type Answer, type OperationDoc } from './operations.ts'

type Json = Record<string, unknown>

const ENVELOPE_JSON = 'application/json'
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })

/** Request schemas describe what a client sends (before trims and defaults); answers what it reads. */
function jsonSchema(schema: v.GenericSchema, typeMode: 'input' | 'output'): Json {
  const converted = toJsonSchema(schema, { errorMode: 'ignore', typeMode }) as Json
  // The dialect is the document's own (OpenAPI 3.1): a nested `$schema` only adds noise.
  delete converted.$schema
  return converted
}

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request: the message names the field',
  401: 'Missing or unknown API key',
  403: 'The key lacks the scope, the tenant is not active, or the plan lacks the feature',
  404: 'Not found (also for another tenant’s id, or a host that names no tenant)',
  409: 'Conflict with the current state, or a request with the same `Idempotency-Key` still running (`Retry-After: 1`)',
  413: 'The request body is over the 10 MB limit',
  422: 'Refused by a rule (or a plan cap), or an `Idempotency-Key` already used with another method, path or body',
  429: 'Rate limited: retry after `Retry-After` seconds',
  500: 'Unexpected error (nothing of it is exposed); safe to retry a read',
  503: 'Temporarily unavailable: retry after `Retry-After` seconds',
}

/** A keyed POST takes an `Idempotency-Key` (decision 0038); other methods ignore the header. */
const takesIdempotencyKey = (def: RouteDef): boolean => def.scope !== null && def.method === 'POST'

/**
 * The statuses every route of its kind can answer, plus the row's own: the gateway refuses a body
 * over its limit (413) on any route that reads one, and any route can fail unexpectedly (500).
 */
function errorStatuses(def: RouteDef, doc: OperationDoc): number[] {
  const statuses = new Set<number>([...(doc.errors ?? []), 500])
  // A malformed key (400), its first request still running (409), the key reused (422).
  if (takesIdempotencyKey(def)) [400, 409, 422].forEach((s) => statuses.add(s))
  if (doc.query || doc.body || doc.paged || doc.sorts) statuses.add(400)
  if (doc.body || def.form) statuses.add(413)
  if (def.path.includes('{')) statuses.add(404)
  // A keyed route answers 404 to a host that names no tenant, whatever its path.
  if (def.scope !== null) [401, 403, 404, 429, 503].forEach((s) => statuses.add(s))
  if (def.perIp) statuses.add(429)
  if (def.form) statuses.add(400)
  return [...statuses].sort((a, b) => a - b)
}

function answerContent(answer: Answer): Json | undefined {
  switch (answer.kind) {
    case 'empty':
    case 'redirect':
      return undefined
    case 'html':
      return { 'text/html': { schema: { type: 'string' } } }
    case 'bare-json':
      return {
        [ENVELOPE_JSON]: {
          schema: answer.schema === 'openapi' ? ref('OpenApiDocument') : jsonSchema(answer.schema, 'output'),
        },
      }
    case 'csv-or-data':
      return {
        [ENVELOPE_JSON]: {
          schema: envelopeOf(jsonSchema(answer.data, 'output'), jsonSchema(answer.meta, 'output')),
        },
        'text/csv': { schema: { type: 'string' } },
      }
    case 'data': {
      const data = answer.data === 'openapi' ? ref('OpenApiDocument') : jsonSchema(answer.data, 'output')
      const meta =
        answer.meta === undefined
          ? { type: 'null' }
          : answer.meta === 'list'
            ? ref('ListMeta')
            : jsonSchema(answer.meta, 'output')
      return { [ENVELOPE_JSON]: { schema: envelopeOf(data, meta) } }
    }
  }
}

const envelopeOf = (data: Json, meta: Json): Json => ({
  type: 'object',
  required: ['data', 'meta', 'error'],
  properties: { data, meta, error: { type: 'null' } },
})

const successDescriptions: Record<Answer['kind'], string> = {
  data: 'The envelope with the answer in `data`',
  'bare-json': 'The JSON document itself (no envelope)',
  empty: 'Done; no body',
  redirect: 'Redirect to `Location`',
  html: 'An HTML page',
  'csv-or-data': 'The envelope, or the CSV file',
}

function responses(def: RouteDef, doc: OperationDoc): Json {
  const out: Json = {}
  for (const [status, answer] of Object.entries(doc.answers)) {
    const content = answerContent(answer)
    const headers: Json = {
      ...(answer.kind === 'redirect'
        ? { Location: { schema: { type: 'string' }, description: 'Where to go next' } }
        : {}),
      ...(takesIdempotencyKey(def) ? { 'Idempotent-Replayed': IDEMPOTENT_REPLAYED } : {}),
    }
    out[status] = {
      description: successDescriptions[answer.kind],
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(content ? { content } : {}),
    }
  }
  for (const status of errorStatuses(def, doc)) {
    const page = out[String(status)] as { content?: Json } | undefined
    // A learner page answers some errors as a page of its own, and the rest (an unknown host) as
    // the error envelope: both contents under the one status.
    out[String(status)] = page
      ? {
          description: `${errorDescriptions[status] ?? 'Error'}: an HTML page, or the error envelope`,
          content: { ...page.content, [ENVELOPE_JSON]: { schema: ref('Error') } },
        }
      : { $ref: `#/components/responses/Error${status}` }
  }
  return out
}

function parameters(def: RouteDef, doc: OperationDoc): Json[] {
  const path = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    example: '8d3c2a4e-1f7b-4c55-9a61-2b0e7f3d9c10',
  }))
  const fields = doc.query ? ((jsonSchema(doc.query, 'input').properties as Json | undefined) ?? {}) : {}
  const paging = doc.paged
    ? [
        { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
      ]
    : []
  const sorting = doc.sorts
    ? [
        { name: 'sort_by', in: 'query', schema: { type: 'string', enum: [...doc.sorts] } },
        { name: 'sort_order', in: 'query', schema: { type: 'string', enum: ['asc', 'desc'] } },
      ]
    : []
  return [
    ...path,
    ...Object.entries(fields).map(([name, schema]) => ({ name, in: 'query', schema })),
    ...paging,
    ...sorting,
    ...(takesIdempotencyKey(def) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ]
}

function operationOf(def: RouteDef, doc: OperationDoc): Json {
  const key = routeKey(def)
  const params = parameters(def, doc)
  return {
    operationId: key.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, ''),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security: def.scope === null ? [] : [{ apiKey: [] }],
    ...(def.scope === null ? {} : { 'x-required-scope': def.scope }),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            content: {
              [ENVELOPE_JSON]: {
                schema: jsonSchema(doc.body, 'input'),
                ...(doc.example ? { example: doc.example } : {}),
              },
            },
          },
        }
      : {}),
    ...(def.deprecation ? { deprecated: true } : {}),
    responses: responses(def, doc),
  }
}

/** The public routes of the table: not the preflights, not the server-to-server ones. */
const described = (def: RouteDef): boolean => def.method !== 'OPTIONS' && !def.internal

/** Every described route has its row and every row its route: a gap fails at cold start (and in the unit tests). */
function rowsOf(): Map<RouteDef, OperationDoc> {
  const rows = new Map<RouteDef, OperationDoc>()
  const keys = new Set(routes.filter(described).map(routeKey))
  for (const key of Object.keys(operations))
    if (!keys.has(key))
      throw new Error(`operations.ts describes ${key}, which is not a public route of the table`)
  for (const def of routes.filter(described)) {
    const doc = operations[routeKey(def)]
    if (!doc) throw new Error(`Route ${routeKey(def)} has no row in functions/docs/operations.ts`)
    rows.set(def, doc)
  }
  return rows
}

const IDEMPOTENT_REPLAYED: Json = { $ref: '#/components/headers/IdempotentReplayed' }

const IDEMPOTENCY_KEY: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  description:
    'Makes a retry safe: kept 24 hours per tenant. The same key with the same method, path and body (as parsed JSON) is answered the first answer again (a 2xx or 4xx), byte for byte, with `Idempotent-Replayed: true`, writing nothing; with another method, path or body, 422; while the first still runs, 409 with `Retry-After: 1`. A 5xx is not kept.',
  example: '5f0c8a8e-0b7e-4c1e-9d2a-3f4b5c6d7e8f',
}

/** A header every delivery carries. */
const deliveryHeader = (name: string, schema: Json, description: string): Json => ({
  name,
  in: 'header',
  required: true,
  schema,
  description,
})

const SIGNATURE_HEADERS: Json[] = [
  deliveryHeader('x-service-event', { type: 'string' }, 'The event type'),
  deliveryHeader(
    'x-service-delivery',
    { type: 'string', format: 'uuid' },
    'The envelope id, for idempotency',
  ),
  deliveryHeader(
    'x-service-signature',
    { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64}){1,2}$' },
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint secret>`, a second `v1=` (the previous secret) while a rotated secret has not expired; accept any `v1=` that verifies, reject a timestamp older than 5 minutes',
  ),
  deliveryHeader(
    'webhook-id',
    { type: 'string', format: 'uuid' },
    'Standard Webhooks: the envelope id, the same on every retry (deduplicate on it)',
  ),
  deliveryHeader(
    'webhook-timestamp',
    { type: 'string', pattern: '^\\d+$' },
    'Standard Webhooks: the attempt’s unix seconds, the `t` of x-service-signature',
  ),
  deliveryHeader(
    'webhook-signature',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the bytes the secret encodes after `whsec_` (what `new Webhook(secret).verify(body, headers)` of the standardwebhooks libraries checks), a second entry after a space (the previous secret) while a rotated secret has not expired',
  ),
]

function webhooks(): Json {
  const out: Json = {}
  for (const event of eventCatalog) {
    const payload = eventPayloads[event as keyof typeof eventPayloads]
    out[event] = {
      post: {
        operationId: `webhook_${event.replace(/\W+/g, '_')}`,
        summary: `The ${event} event`,
        tags: ['Webhook events'],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: {
            [ENVELOPE_JSON]: {
              schema: {
                type: 'object',
                required: ['id', 'event', 'createdAt', 'data'],
                properties: {
                  id: {
                    type: 'string',
                    format: 'uuid',
                    description: 'The envelope id: the same on every retry',
                  },
                  event: { const: event },
                  createdAt: { type: 'string', format: 'date-time' },
                  data: jsonSchema(payload, 'output'),
                },
              },
            },
          },
        },
        responses: { '200': { description: 'Any 2xx within 10 seconds acknowledges the delivery' } },
      },
    }
  }
  return out
}

function errorResponses(): Json {
  const out: Json = {}
  for (const [status, description] of Object.entries(errorDescriptions))
    out[`Error${status}`] = {
      description,
      content: {
        [ENVELOPE_JSON]: {
          schema: ref('Error'),
          example: { data: null, meta: null, error: { code: Number(status), message: description } },
        },
      },
    }
  return out
}

export function buildOpenApiDocument(serviceHost: string): Json {
  const paths: Record<string, Json> = {}
  for (const [def, doc] of rowsOf())
    paths[def.path] = { ...(paths[def.path] ?? {}), [def.method.toLowerCase()]: operationOf(def, doc) }
  const tags = [...new Set(Object.values(operations).map((o) => o.tag)), 'Webhook events']
  return {
    openapi: '3.1.0',
    info: {
      title: 'Learning Management Service API',
      version: 'v1',
      description:
        'Tenant by subdomain; `Authorization: Bearer <API key>`; every JSON answer is the envelope `{data, meta, error}`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `https://{tenant}.${serviceHost}`, variables: { tenant: { default: 'demo' } } }],
    tags: tags.map((name) => ({ name, description: `${name} routes` })),
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: Authorization: Bearer <key>' },
      },
      responses: errorResponses(),
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      headers: {
        IdempotentReplayed: {
          description: 'Present, `true`, on an answer replayed for a repeated `Idempotency-Key`',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['data', 'meta', 'error'],
          properties: {
            data: { type: 'null' },
            meta: { type: 'null' },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'integer' }, message: { type: 'string' } },
              additionalProperties: true,
            },
          },
        },
        ListMeta: {
          type: 'object',
          required: ['page', 'per_page', 'total'],
          properties: {
            page: { type: 'integer' },
            per_page: { type: 'integer' },
            total: { type: 'integer' },
          },
        },
        OpenApiDocument: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
          additionalProperties: true,
        },
      },
    },
  }
}
