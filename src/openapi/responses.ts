import type { JsonSchemaObject } from './components.ts'

/** A named example, as OpenAPI's `examples` map holds it. */
export type NamedExample = { summary: string; value: unknown }

/** One OpenAPI response object. */
export type ResponseObject = {
  description: string
  headers?: Record<string, unknown>
  content?: Record<string, { schema: JsonSchemaObject; example?: unknown; examples?: Record<string, NamedExample> }>
}

/** `application/json` content: its schema and one example. */
export function jsonContent(schema: JsonSchemaObject, example: unknown) {
  return { 'application/json': { schema, example } }
}

/** `application/json` content: its schema and several named examples (one per code, say). */
export function jsonExamples(schema: JsonSchemaObject, examples: Record<string, NamedExample>) {
  return { 'application/json': { schema, examples } }
}

/** The `Retry-After` header of a 429 (seconds; the edge sends an integer). */
export const retryAfterHeader = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 1 },
}

/** The plain-text 404 both services answer for a path they do not serve. */
export const notFoundResponse: ResponseObject = {
  description: 'No such route (or no such resource): the body is the text `not found`.',
  content: { 'text/plain': { schema: { type: 'string' }, example: 'not found' } },
}

/**
 * Bun's own answer to a request line or headers over its limit (~16 KiB), given by the
 * HTTP server before any route runs: no body, and the connection closed.
 */
export const headersTooLargeResponse: ResponseObject = {
  description:
    "Request Header Fields Too Large: the request line (a URL with thousands of query parameters) or the headers exceed Bun's limit of about 16 KiB. Answered by the HTTP server before any route runs, without a body, and the connection is closed; send a shorter request.",
  headers: { Connection: { description: 'Always `close`.', schema: { type: 'string', const: 'close' }, example: 'close' } },
}

/** The `Access-Control-*` headers of an answered CORS preflight. */
const preflightHeaders = {
  'Access-Control-Allow-Origin': { description: 'The origin granted (`*` for a public read); absent when the preflight is refused.', schema: { type: 'string' }, example: '*' },
  'Access-Control-Allow-Methods': { description: 'The methods granted.', schema: { type: 'string' }, example: 'GET,HEAD' },
  'Access-Control-Max-Age': { description: 'Seconds a browser may keep the answer.', schema: { type: 'integer' }, example: 600 },
}

/**
 * An `options` operation: the CORS preflight of a route (a browser sends it before a
 * read with a non-safelisted header, or before a POST), answered 204 with the
 * `Access-Control-*` headers when granted and without them when refused; an OPTIONS
 * that is not a preflight gets 204 too. `answers` names who is granted what.
 */
export function preflightOperation(operationId: string, tag: string, answers: string, extraResponses: Record<string, ResponseObject> = {}) {
  return {
    operationId,
    summary: 'CORS preflight',
    description: `${answers} Answered before any rate limit, so a browser sees the real answer to the request it then sends.`,
    tags: [tag],
    responses: { '204': { description: 'The preflight answered: granted (Access-Control-* headers) or refused (none of them).', headers: preflightHeaders }, ...extraResponses },
  }
}

/**
 * The `/api/openapi.json` path item: the document describes itself, so a client
 * that follows its own document knows where it came from.
 */
export function openApiPathItem(extraResponses: Record<string, ResponseObject> = {}) {
  return {
    get: {
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document',
      description: 'The document you are reading, generated at start from the wire schemas. Readable from any origin.',
      tags: ['meta'],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document (JSON Schema 2020-12 schemas).',
          content: jsonContent(
            {
              type: 'object',
              properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
              required: ['openapi', 'info', 'paths'],
            },
            { openapi: '3.1.0', info: { title: 'order-relay', version: '0.1.0' }, paths: {} },
          ),
        },
        ...extraResponses,
      },
    },
  }
}

export type DocumentHeadParameters = {
  title: string
  version: string
  description: string
  /** Where the routes are served, relative to the document's own URL by default. */
  serverDescription: string
}

/**
 * The parts every order-relay document starts with: `openapi`, `info` (with the
 * license), `servers` (the server that serves the document: a relative URL, so it is
 * right wherever the service runs) and `security: []` (no route is authenticated).
 */
export function documentHead(parameters: DocumentHeadParameters) {
  return {
    openapi: '3.1.0' as const,
    info: {
      title: parameters.title,
      version: parameters.version,
      description: parameters.description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: parameters.serverDescription }],
    security: [],
  }
}
