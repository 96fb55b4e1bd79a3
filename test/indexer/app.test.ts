import { expect, test } from 'bun:test'
import { createIndexerApp } from '../../src/indexer/http/app.ts'
import type { BuiltSnapshot, SnapshotCache } from '../../src/indexer/snapshot.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

const built = { snapshot: {}, body: '{"source":"chain"}', etag: '"abc"' } as BuiltSnapshot

function failingCache(last: BuiltSnapshot | undefined): SnapshotCache {
  return {
    current: () => {
      throw new Error('boom')
    },
    last: () => last,
  }
}

test('an internal error while building the snapshot answers the last snapshot, never a 500', async () => {
  const logger = createMemoryLogger()
  const response = await createIndexerApp(failingCache(built), logger, { version: '0.0.0' }).request('/activity')
  expect(response.status).toBe(200)
  expect(response.headers.get('etag')).toBe('"abc"')
  expect(await response.text()).toBe('{"source":"chain"}')
  expect(logger.lines).toEqual(['error: indexer: building the snapshot failed: boom'])
})

test('with no snapshot to fall back on it answers 503 JSON', async () => {
  const response = await createIndexerApp(failingCache(undefined), createMemoryLogger(), { version: '0.0.0' }).request('/activity')
  expect(response.status).toBe(503)
  expect(await response.json()).toEqual({ ok: false, code: 'UNAVAILABLE', message: 'no snapshot yet; retry shortly' })
})
