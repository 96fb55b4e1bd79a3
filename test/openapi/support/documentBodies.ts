// The shapes of an OpenAPI document the document tests read, and the walk over its bodies.

/** One body's media object: its schema and its example(s). */
export type Media = {
  schema: { $ref?: string; anyOf?: { $ref: string }[]; const?: string }
  example?: unknown
  examples?: Record<string, { value: unknown }>
}
export type Parameter = { name: string; in: string; example?: unknown }
export type Operation = {
  parameters?: Parameter[]
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, { content?: Record<string, Media> }>
}
export type OpenApiDocument = {
  openapi: string
  info: Record<string, unknown>
  servers: unknown
  security: unknown
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Record<string, unknown>> }
}

/** Every request and response body of the document: where it is (`get /x 200 application/json`), and its media object. */
export function documentBodies(document: OpenApiDocument): [string, Media][] {
  const found: [string, Media][] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) found.push([`${method} ${path} request ${type}`, media])
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) found.push([`${method} ${path} ${status} ${type}`, media])
      }
    }
  }
  return found
}
