/**
 * The machine-readable API description (OpenAPI 3.1), built once per container from the route
 * table and the valibot schemas the handlers validate with: the description cannot drift from
 * what the API routes and accepts.
 */
import { ListDeliveriesFilters } from '../../shared/domain/webhooks/webhook.ts'
import { ContactInput } from '../../shared/domain/contact.ts'
import { SignupInput } from '../../shared/domain/tenants/signup.ts'
import { toJsonSchema } from '@valibot/to-json-schema'
import type * as v from 'valibot'
import {
  CreateCourseInput,
  ListCoursesFilters,
  UpdateCourseInput,
} from '../../shared/domain/courses/course.ts'
import { AddModuleInput } from '../../shared/domain/courses/module.ts'
import {
  BulkEnrollmentInput,
  CourseEnrollmentInput,
  CreateEnrollmentInput,
  ListEnrollmentsFilters,
  UpdateEnrollmentInput,
} from '../../shared/domain/enrollments/enrollment.ts'
import {
  AddMembersInput,
  CreateGroupInput,
  RemoveMembersInput,
  UpdateGroupInput,
} from '../../shared/domain/groups/group.ts'
import { CreateUserInput, UpdateUserInput } from '../../shared/domain/users/user-schemas.ts'
import { routeKey, routes, type RouteDef } from '../../shared/routes.ts'
import {
  ComplianceFilters,
  CompletionsFilters,
  CoursePerformanceFilters,
  EnrollmentsFilters,
  UserActivityFilters,
} from '../../shared/domain/reports/queries.ts'
import { ListUsersFilters, TranscriptQuery } from '../users/list-users-query.ts'
import { ExportJobInput } from '../../shared/domain/reports/export-jobs.ts'

const bodies: Record<string, v.GenericSchema> = {
  'POST /api/v1/users': CreateUserInput,
  'PATCH /api/v1/users/{id}': UpdateUserInput,
  'POST /api/v1/groups': CreateGroupInput,
  'PATCH /api/v1/groups/{id}': UpdateGroupInput,
  'POST /api/v1/groups/{id}/members': AddMembersInput,
  'DELETE /api/v1/groups/{id}/members': RemoveMembersInput,
  'POST /api/v1/courses': CreateCourseInput,
  'PATCH /api/v1/courses/{id}': UpdateCourseInput,
  'POST /api/v1/courses/{id}/modules': AddModuleInput,
  'POST /api/v1/courses/{id}/enrollments': CourseEnrollmentInput,
  'POST /api/v1/enrollments': CreateEnrollmentInput,
  'POST /api/v1/enrollments/bulk': BulkEnrollmentInput,
  'PATCH /api/v1/enrollments/{id}': UpdateEnrollmentInput,
  'POST /api/v1/signup': SignupInput,
  'POST /api/v1/contact': ContactInput,
  'POST /api/v1/reports/export': ExportJobInput,
}

const queries: Record<string, v.GenericSchema> = {
  'GET /api/v1/users': ListUsersFilters,
  'GET /api/v1/users/{id}/transcript': TranscriptQuery,
  'GET /api/v1/courses': ListCoursesFilters,
  'GET /api/v1/enrollments': ListEnrollmentsFilters,
  'GET /api/v1/webhooks/deliveries': ListDeliveriesFilters,
  'GET /api/v1/reports/completions': CompletionsFilters,
  'GET /api/v1/reports/enrollments': EnrollmentsFilters,
  'GET /api/v1/reports/compliance': ComplianceFilters,
  'GET /api/v1/reports/users/activity': UserActivityFilters,
  'GET /api/v1/reports/courses/performance': CoursePerformanceFilters,
}

const listRoutes = new Set([
  'GET /api/v1/users',
  'GET /api/v1/groups',
  'GET /api/v1/groups/{id}/members',
  'GET /api/v1/courses',
  'GET /api/v1/courses/{id}/enrollments',
  'GET /api/v1/enrollments',
  'GET /api/v1/webhooks/deliveries',
  'GET /api/v1/completions',
  'GET /api/v1/reports/completions',
  'GET /api/v1/reports/enrollments',
  'GET /api/v1/reports/compliance',
  'GET /api/v1/reports/users/activity',
  'GET /api/v1/reports/courses/performance',
])

/** Schemas are documented as JSON Schema; transforms (trim, lowercase) describe their input. */
function jsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  return toJsonSchema(schema, { errorMode: 'ignore', typeMode: 'input' }) as Record<string, unknown>
}

function parameters(def: RouteDef): Record<string, unknown>[] {
  const path = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }))
  const key = routeKey(def)
  const query = queries[key]
  const fields = query ? ((jsonSchema(query).properties as Record<string, unknown> | undefined) ?? {}) : {}
  const paging = listRoutes.has(key)
    ? [
        { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
      ]
    : []
  return [
    ...path,
    ...Object.entries(fields).map(([name, schema]) => ({ name, in: 'query', schema })),
    ...paging,
  ]
}

function operation(def: RouteDef): Record<string, unknown> {
  const key = routeKey(def)
  const body = bodies[key]
  return {
    operationId: key.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, ''),
    tags: [def.group],
    ...(def.scope === null
      ? { security: [] }
      : { security: [{ apiKey: [] }], 'x-required-scope': def.scope }),
    parameters: parameters(def),
    ...(body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(body) } } } }
      : {}),
    ...(def.deprecation ? { deprecated: true } : {}),
    responses: {
      default: {
        description: 'The envelope {data, meta, error}; error.code equals the HTTP status',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } },
      },
    },
  }
}

export function buildApiDescription(serviceHost: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const def of routes) {
    if (def.method === 'OPTIONS' || def.internal) continue
    paths[def.path] = { ...(paths[def.path] ?? {}), [def.method.toLowerCase()]: operation(def) }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Learning Management Service API', version: 'v1' },
    servers: [{ url: `https://{tenant}.${serviceHost}`, variables: { tenant: { default: 'demo' } } }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: Authorization: Bearer <key>' },
      },
      schemas: {
        Envelope: {
          type: 'object',
          required: ['data', 'meta', 'error'],
          properties: {
            data: {},
            meta: { type: ['object', 'null'] },
            error: {
              type: ['object', 'null'],
              properties: { code: { type: 'integer' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
    paths,
  }
}
