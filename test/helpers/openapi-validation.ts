/**
 * Every answer the stack tests receive, and every webhook delivery their receivers get, is checked
 * against the OpenAPI document the API serves (api-additions §1: "every response the API gives
 * validates against that document"). The document is built in memory once per test worker, and
 * each answer's validator is compiled once (per operation, status and content type).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { buildOpenApiDocument } from '../../functions/docs/openapi-document.ts'
import { matchRoute, routeKey } from '../../shared/routes.ts'

type Json = Record<string, unknown>
interface MediaType {
  readonly schema?: Json
}
interface ResponseDoc {
  readonly content?: Record<string, MediaType>
  readonly $ref?: string
}
interface OperationDoc {
  readonly responses: Record<string, ResponseDoc>
}

const DOC_ID = 'openapi.json'
// ajv-formats is CommonJS: its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020

let built: { doc: Json; ajv: Ajv2020 } | undefined
function documentAndAjv(): { doc: Json; ajv: Ajv2020 } {
  if (built) return built
  const doc = buildOpenApiDocument('lms.test')
  // strict off: the document is added whole so `$ref`s into components resolve, and its OpenAPI
  // keywords (paths, info, example...) are not JSON Schema ones. Every other check stays on.
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema(doc, DOC_ID)
  built = { doc, ajv }
  return built
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')

const validators = new Map<string, ValidateFunction>()
function validatorAt(path: string): ValidateFunction {
  let fn = validators.get(path)
  if (!fn) {
    fn = documentAndAjv().ajv.compile({ $ref: `${DOC_ID}#/${path}` })
    validators.set(path, fn)
  }
  return fn
}

const errorsOf = (fn: ValidateFunction): string =>
  (fn.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    )
    .join('; ')

/** `#/components/responses/X` → the object and its pointer. */
function resolveResponse(response: ResponseDoc, at: string): { response: ResponseDoc; at: string } {
  if (!response.$ref) return { response, at }
  const name = response.$ref.replace('#/components/responses/', '')
  const components = documentAndAjv().doc.components as { responses: Record<string, ResponseDoc> }
  const target = components.responses[name]
  if (!target) throw new Error(`The document's ${response.$ref} does not exist`)
  return { response: target, at: pointer('components', 'responses', name) }
}

export interface Answered {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: unknown
}

const mediaTypeOf = (headers: Answered['headers']): string | undefined => {
  const raw = headers['content-type']
  const value = Array.isArray(raw) ? raw[0] : raw
  return value?.split(';')[0]?.trim().toLowerCase()
}

/**
 * What the document cannot describe, kept to the least:
 * - OPTIONS preflights and server-to-server routes (`internal`): the document leaves them out on
 *   purpose (the preflight is CORS machinery; the billing route is not part of the public API).
 */
function exempt(method: string, path: string): boolean {
  const match = matchRoute(method, path)
  return match !== undefined && (match.def.method === 'OPTIONS' || match.def.internal === true)
}

/** The label of the answer's operation (or of the fallback) and its declared responses. */
function operationFor(
  method: string,
  path: string,
): { label: string; responses: Record<string, ResponseDoc>; at: string } {
  const match = matchRoute(method, path)
  if (match) {
    const paths = documentAndAjv().doc.paths as Record<string, Record<string, OperationDoc>>
    const op = paths[match.def.path]?.[method.toLowerCase()]
    // The builder refuses a public route without a row; this can only be a route left out on purpose.
    if (!op) throw new Error(`OpenAPI: ${routeKey(match.def)} is routed but not in the document`)
    return {
      label: routeKey(match.def),
      responses: op.responses,
      at: pointer('paths', match.def.path, method.toLowerCase(), 'responses'),
    }
  }
  // A path of no route is answered by the fallback (the $default route): the document has no
  // operation to name it, so its answers are held to the one thing it promises for every path,
  // the error envelope of a documented error status (the fallback's 404, the gateway's 413...).
  const responses = (documentAndAjv().doc.components as { responses: Record<string, ResponseDoc> }).responses
  return {
    label: `${method} ${path} (no route: the fallback)`,
    responses: Object.fromEntries(
      Object.keys(responses).map((name) => [
        name.replace('Error', ''),
        { $ref: `#/components/responses/${name}` },
      ]),
    ),
    at: pointer('components', 'responses'),
  }
}

/** The violation of the document by this answer, or undefined when it conforms. */
export function violationOf(method: string, target: string, reply: Answered): string | undefined {
  const path = target.split('?')[0] ?? target
  if (exempt(method, path)) return undefined
  const { label, responses, at } = operationFor(method, path)
  const declared = responses[String(reply.status)]
  if (!declared)
    return `OpenAPI: ${label} answered ${reply.status}, a status the document does not declare (it has ${Object.keys(responses).join(', ')}): ${reply.text.slice(0, 200)}`
  const resolved = resolveResponse(declared, `${at}/${pointer(String(reply.status))}`)
  const responseAt = resolved.at
  const content = resolved.response.content
  if (!content) {
    if (reply.text.length > 0)
      return `OpenAPI: ${label} ${reply.status} has no body in the document, but answered ${reply.text.slice(0, 200)}`
    return undefined
  }
  const type = mediaTypeOf(reply.headers)
  if (!type || !content[type])
    return `OpenAPI: ${label} ${reply.status} answered Content-Type ${String(type)}; the document has ${Object.keys(content).join(', ')}`
  if (!content[type].schema) return undefined
  const fn = validatorAt(`${responseAt}/content/${pointer(type)}/schema`)
  const value = type === 'application/json' ? reply.body : reply.text
  if (type === 'application/json' && reply.body === undefined)
    return `OpenAPI: ${label} ${reply.status} answered no JSON: ${reply.text.slice(0, 200)}`
  if (!fn(value)) return `OpenAPI: ${label} ${reply.status} body: ${errorsOf(fn)}`
  return undefined
}

/** A webhook delivery's violation of the document's `webhooks:` entry for its event, if any. */
export function webhookViolationOf(headers: Answered['headers'], raw: string): string | undefined {
  const header = (name: string) => {
    const value = headers[name]
    return Array.isArray(value) ? value[0] : value
  }
  const event = header('x-service-event')
  if (event === undefined) return undefined
  const webhooks = documentAndAjv().doc.webhooks as Record<
    string,
    { post: { parameters: { name: string; schema: Json }[] } }
  >
  const entry = webhooks[event]
  if (!entry) return `OpenAPI webhook: event ${event} has no webhooks: entry in the document`
  for (const p of entry.post.parameters) {
    const value = header(p.name)
    if (value === undefined) return `OpenAPI webhook ${event}: header ${p.name} missing`
    const fn = validatorAt(
      pointer('webhooks', event, 'post', 'parameters', String(entry.post.parameters.indexOf(p)), 'schema'),
    )
    if (!fn(value)) return `OpenAPI webhook ${event}: header ${p.name}: ${errorsOf(fn)}`
  }
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    return `OpenAPI webhook ${event}: the body is not JSON`
  }
  const fn = validatorAt(
    pointer('webhooks', event, 'post', 'requestBody', 'content', 'application/json', 'schema'),
  )
  if (!fn(body)) return `OpenAPI webhook ${event} body: ${errorsOf(fn)}`
  return undefined
}
