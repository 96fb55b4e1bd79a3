// The indexer's OpenAPI document as tools read it (docs/api.md):
// the same head as the relayer's, every route and status it answers, and an example
// for every parameter and body that its own schema accepts. (redocly lints the file
// in .ci/run; test/indexer/query.test.ts checks the live GET /api/openapi.json.)
import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import { createIndexerApp } from '../../src/indexer/http/app.ts'
import { indexerOpenApiDocument } from '../../src/indexer/index.ts'
import type { SnapshotCache } from '../../src/indexer/snapshot.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import {
  ActivityPageSchema,
  ActivityQueryProblemSchema,
  ActivityQuerySchema,
  ActivitySnapshotSchema,
  ActivityStreamMessageSchema,
  ActivityStreamQuerySchema,
  IndexerReadinessSchema,
  IndexerStatusSchema,
  IndexerUnavailableSchema,
} from '../../src/wire/index.ts'
import { documentBodies, type OpenApiDocument } from './support/documentBodies.ts'


const document = indexerOpenApiDocument('1.2.3') as OpenApiDocument
const wire: Record<string, v.GenericSchema> = {
  ActivitySnapshot: ActivitySnapshotSchema,
  ActivityPage: ActivityPageSchema,
  ActivityQueryProblem: ActivityQueryProblemSchema,
  IndexerUnavailable: IndexerUnavailableSchema,
  IndexerReadiness: IndexerReadinessSchema,
  IndexerStatus: IndexerStatusSchema,
}
const named = (ref: string) => ref.replace('#/components/schemas/', '')

const bodies = () => documentBodies(document)

describe('the indexer document', () => {
  test('head: OpenAPI 3.1 at the given version, the relayer\'s license, a server, no authentication', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.info).toMatchObject({ title: 'order-relay indexer', version: '1.2.3', license: { name: 'MIT', identifier: 'MIT' } })
    expect(document.servers).toEqual([{ url: '/', description: 'The indexer that served this document.' }])
    expect(document.security).toEqual([])
  })

  test('is a valid OpenAPI 3.1 document, cached per version', async () => {
    expect(await new Validator().validate(document)).toEqual({ valid: true })
    expect(indexerOpenApiDocument('1.2.3')).toBe(document)
    expect((indexerOpenApiDocument('2.0.0') as { info: { version: string } }).info.version).toBe('2.0.0')
  })

  test('every route with every status it answers, each public read with its preflight, 431 everywhere', () => {
    const statuses = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => [`${method} ${path}`, Object.keys(operation.responses)])),
    )
    const preflight = ['204', '404', '431']
    expect(statuses).toEqual({
      'get /activity': ['200', '304', '400', '404', '431', '503'],
      'options /activity': preflight,
      'get /activity/stream': ['200', '400', '404', '431', '503'],
      'options /activity/stream': preflight,
      'get /ready': ['200', '404', '431', '503'],
      'options /ready': preflight,
      'get /status': ['200', '404', '431', '503'],
      'options /status': preflight,
      'get /': ['200', '404', '431'],
      'get /health': ['200', '404', '431'],
      'options /health': preflight,
      'get /api/openapi.json': ['200', '404', '431'],
      'options /api/openapi.json': preflight,
    })
  })

  test('JSON Schema 2020-12: the four addresses are prefixItems', () => {
    const addresses = (document.components.schemas.ActivitySnapshot?.properties as Record<string, Record<string, unknown>>).addresses
    expect(addresses).toMatchObject({ type: 'array', minItems: 4, description: 'registry, inbox, pool, escrow, in that order' })
    expect((addresses?.prefixItems as unknown[]).length).toBe(4)
    expect(addresses?.items).toBeUndefined()
    expect(JSON.stringify(document)).not.toContain('$defs')
  })

  test('every /activity query parameter has an example its own schema accepts', () => {
    const parameters = document.paths['/activity']?.get?.parameters ?? []
    const query = Object.fromEntries(parameters.filter((each) => each.in === 'query').map((each) => [each.name, each.example]))
    expect(Object.keys(query)).toEqual(['name', 'address', 'fromBlock', 'toBlock', 'limit', 'cursor'])
    expect(v.safeParse(ActivityQuerySchema, query).issues?.map((issue) => issue.message)).toBeUndefined()
    const header = parameters.find((each) => each.in === 'header')
    expect([header?.name, typeof header?.example]).toEqual(['If-None-Match', 'string'])
  })

  test('every body has an example, and its own schema accepts every example', () => {
    const checked: string[] = []
    for (const [where, media] of bodies()) {
      const examples = media.examples ? Object.values(media.examples).map((each) => each.value) : [media.example]
      expect({ where, missing: examples.filter((each) => each === undefined).length }).toEqual({ where, missing: 0 })
      const names = media.schema.$ref ? [named(media.schema.$ref)] : (media.schema.anyOf ?? []).map((each) => named(each.$ref))
      if (names.length === 0) continue
      for (const example of examples) {
        const accepted = names.filter((name) => {
          const schema = wire[name]
          if (!schema) throw new Error(`${where}: no wire schema for ${name}`)
          return v.safeParse(schema, example).success
        })
        expect({ where, accepted: accepted.length > 0 }).toEqual({ where, accepted: true })
      }
      checked.push(where)
    }
    expect(checked.sort()).toEqual([
      'get /activity 200 application/json',
      'get /activity 400 application/json',
      'get /activity 503 application/json',
      'get /activity/stream 400 application/json',
      'get /activity/stream 503 application/json',
      'get /ready 200 application/json',
      'get /ready 503 application/json',
      'get /status 200 application/json',
      'get /status 503 application/json',
    ])
    const activity = document.paths['/activity']?.get?.responses['200']?.content?.['application/json']?.examples ?? {}
    expect(v.safeParse(ActivityPageSchema, activity.page?.value).success).toBe(true)
    expect(Object.keys(document.paths['/ready']?.get?.responses['503']?.content?.['application/json']?.examples ?? {})).toEqual([
      'head-unreadable',
      'repairing',
      'backfilling',
      'stale',
      'database-unreachable',
    ])
  })

  test('GET /activity/stream: its parameters and every example message are accepted by the wire schemas', () => {
    const operation = document.paths['/activity/stream']?.get
    const query = Object.fromEntries((operation?.parameters ?? []).filter((each) => each.in === 'query').map((each) => [each.name, each.example]))
    expect(Object.keys(query)).toEqual(['name', 'address', 'fromBlock', 'cursor'])
    expect(v.safeParse(ActivityStreamQuerySchema, query).issues).toBeUndefined()
    const media = operation?.responses['200']?.content?.['text/event-stream']
    expect(media?.schema as unknown).toEqual({ type: 'array', items: { $ref: '#/components/schemas/ActivityStreamMessage' } })
    const examples = Object.values(media?.examples ?? {})
    expect(examples.length).toBe(3)
    for (const example of examples) expect(v.safeParse(v.array(ActivityStreamMessageSchema), example.value).issues).toBeUndefined()
  })

  test('the text bodies: health says ok, unknown paths say not found, as the app answers', async () => {
    const text = (path: string, status: string) => document.paths[path]?.get?.responses[status]?.content?.['text/plain']?.example as string
    const snapshots: SnapshotCache = { current: () => { throw new Error('no snapshot in this test') }, last: () => undefined }
    const app = createIndexerApp(snapshots, createMemoryLogger(), { version: '1.2.3' })
    const health = await app.request('/health')
    expect([health.status, await health.text()]).toEqual([200, text('/health', '200')])
    const missing = await app.request('/health/')
    expect([missing.status, await missing.text()]).toEqual([404, text('/health', '404')])
    const served = await app.request('/api/openapi.json')
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(document)))
  })
})
