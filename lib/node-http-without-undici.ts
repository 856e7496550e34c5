/**
 * `node:http` for the Lambda bundles (lib/bundling.ts aliases it here). Node 24 loads undici, its
 * fetch and WebSocket implementation, to build the ESM view of `node:http` (three of its exports
 * are undici's, read when the view is made): 25-40 ms of CPU at every cold start for a module no
 * Lambda uses, paid for by whatever imports `node:http` (Middy's util does, for STATUS_CODES). The
 * module as CommonJS code gets it has no such view; these are its exports the bundles use.
 */
const http = process.getBuiltinModule('node:http')

export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  OutgoingMessage,
  METHODS,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  request,
  validateHeaderName,
  validateHeaderValue,
} = http
