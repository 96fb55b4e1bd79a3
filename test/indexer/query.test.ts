import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import packageJson from '../../package.json' with { type: 'json' }
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { indexerOpenApiDocument } from '../../src/indexer/index.ts'
import { ActivityPageSchema, type ActivityEvent, type ActivityPage } from '../../src/wire/index.ts'
import { proposeLien, runRegistryFlow } from './registryFlow.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let indexer: TestIndexer
let all: ActivityEvent[]

beforeAll(async () => {
  devnet = await startDevnet()
  await runRegistryFlow(devnet, 'query one')
  await runRegistryFlow(devnet, 'query two')
  indexer = await startTestIndexer(devnet)
  await indexer.sync.syncOnce()
  all = indexer.sync.snapshot().events as ActivityEvent[]
})

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

async function page(query: string) {
  const { status, json } = await indexer.get(`/activity?${query}`)
  expect(status).toBe(200)
  return v.parse(ActivityPageSchema, json) as ActivityPage
}

/** Every page of `query` with `limit`, following nextCursor until a short page. */
async function allPages(query: string, limit: number) {
  const events: ActivityEvent[] = []
  let cursor = ''
  for (let pages = 0; pages < 1_000; pages++) {
    const answer = await page(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
    events.push(...answer.events)
    if (answer.events.length < limit) return events
    cursor = answer.nextCursor as string
  }
  throw new Error('no last page')
}

describe('GET /activity query parameters', () => {
  test('without parameters the body and ETag are the plain snapshot\'s, with no new field', async () => {
    const plain = await indexer.get('/activity')
    expect(plain.text).toBe(JSON.stringify(indexer.sync.snapshot()))
    expect(Object.keys(plain.json as object)).not.toContain('nextCursor')
  })

  test('name, address, fromBlock and toBlock select exactly the matching events, in chain order', async () => {
    const { escrow, inbox } = devnet.manifest.contracts
    expect((await page('name=LienRecorded')).events).toEqual(all.filter((event) => event.name === 'LienRecorded'))
    expect((await page('name=LienProposed,Repaid')).events).toEqual(all.filter((event) => event.name === 'LienProposed' || event.name === 'Repaid'))
    expect((await page(`address=${escrow.toLowerCase()}`)).events).toEqual(all.filter((event) => event.address === escrow))
    expect((await page(`address=${escrow},${inbox.toUpperCase().replace('0X', '0x')}`)).events).toEqual(
      all.filter((event) => event.address === escrow || event.address === inbox),
    )
    const middle = all[Math.floor(all.length / 2)]!.blockNumber
    const last = all.at(-1)!.blockNumber
    expect((await page(`fromBlock=${middle}`)).events).toEqual(all.filter((event) => BigInt(event.blockNumber) >= BigInt(middle)))
    expect((await page(`toBlock=${middle}`)).events).toEqual(all.filter((event) => BigInt(event.blockNumber) <= BigInt(middle)))
    expect((await page(`fromBlock=${middle}&toBlock=${middle}&name=${all.find((e) => e.blockNumber === middle)!.name}`)).events.length).toBeGreaterThan(0)
    const answer = await page(`fromBlock=${BigInt(last) + 1n}`)
    expect(answer.events).toEqual([])
    expect(answer.nextCursor).toBeNull()
    // The snapshot fields are the same as without parameters.
    const { events: _events, ...fields } = indexer.sync.snapshot()
    const { events: _paged, nextCursor: _cursor, ...pagedFields } = answer
    expect(pagedFields).toEqual(fields)
  })

  test('limit and cursor page through every event in chain order, without gap or repeat', async () => {
    expect(await allPages('fromBlock=0', 1)).toEqual(all)
    expect(await allPages('fromBlock=0', 4)).toEqual(all)
    expect(await allPages('name=LienProposed,LienRecorded', 1)).toEqual(all.filter((e) => e.name === 'LienProposed' || e.name === 'LienRecorded'))
    const first = await page('limit=3')
    expect(first.events).toEqual(all.slice(0, 3))
    const position = `${all[2]!.blockNumber}.${all[2]!.logIndex}`
    expect(Buffer.from(first.nextCursor as string, 'base64url').toString()).toBe(position)
    // An empty page keeps the cursor: polling with it later returns what came after.
    const end = await page(`cursor=${Buffer.from(`${all.at(-1)!.blockNumber}.${all.at(-1)!.logIndex}`).toString('base64url')}`)
    expect(end.events).toEqual([])
    expect(end.nextCursor).toBe(Buffer.from(`${all.at(-1)!.blockNumber}.${all.at(-1)!.logIndex}`).toString('base64url'))
  })

  test('a bad parameter answers 400 with a JSON body naming it', async () => {
    const cases: [string, string, string][] = [
      ['limit=0', 'limit', 'limit: must be a whole number from 1 to 10000000'],
      ['limit=10000001', 'limit', 'limit: must be a whole number from 1 to 10000000'],
      ['fromBlock=abc', 'fromBlock', 'fromBlock: must be a block number (decimal digits)'],
      ['toBlock=-1', 'toBlock', 'toBlock: must be a block number (decimal digits)'],
      ['address=0x12', 'address', 'address: must be an address (0x followed by 40 hex digits), or several separated by commas'],
      ['name=Lien Recorded', 'name', 'name: must be an event name, or several separated by commas'],
      [`cursor=${Buffer.from('not ours').toString('base64url')}`, 'cursor', 'cursor: must be a nextCursor value from an earlier answer'],
      ['cursor=a+b', 'cursor', 'cursor: must be a nextCursor value from an earlier answer'],
      ['name=A&name=B', 'name', 'name: given more than once; separate several values with commas'],
      ['from=1', 'from', 'from: unknown query parameter (known: name, address, fromBlock, toBlock, limit, cursor)'],
    ]
    for (const [query, parameter, message] of cases) {
      const { status, json } = await indexer.get(`/activity?${query}`)
      expect({ query, status, json }).toEqual({ query, status: 400, json: { ok: false, code: 'BAD_QUERY', parameter, message } })
    }
  })

  test('a page has its own ETag and answers 304 to it', async () => {
    const first = await indexer.get('/activity?limit=2')
    const etag = first.headers.get('etag') as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(etag).not.toBe((await indexer.get('/activity')).headers.get('etag'))
    expect((await indexer.get('/activity?limit=2', { headers: { 'If-None-Match': etag } })).status).toBe(304)
  })

  test('paging across a reorg: the next page continues from the cursor on the new chain', async () => {
    const firstPage = await page(`fromBlock=0&limit=${all.length}`)
    expect(firstPage.events).toEqual(all)
    const saved = await devnet.testClient.snapshot()
    const orphan = await proposeLien(devnet, 'paged orphan')
    await indexer.sync.syncOnce()
    expect((await page(`cursor=${firstPage.nextCursor}`)).events.map((e) => e.transactionHash)).toEqual([orphan.receipt.transactionHash])

    await devnet.testClient.revert({ id: saved })
    await devnet.testClient.mine({ blocks: 1 })
    const replacement = await proposeLien(devnet, 'paged replacement')
    await indexer.sync.syncOnce()
    const next = await page(`cursor=${firstPage.nextCursor}`)
    expect(next.events.map((e) => e.transactionHash)).toEqual([replacement.receipt.transactionHash])
    expect(next.events[0]?.blockNumber).toBe((BigInt(all.at(-1)!.blockNumber) + 2n).toString())
  })
})

describe('GET /api/openapi.json', () => {
  test('is OpenAPI 3.1, valid, and lists every route with the query parameters of /activity', async () => {
    const { status, json, headers } = await indexer.get('/api/openapi.json')
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('application/json')
    const document = json as Record<string, any>
    expect(document.openapi).toBe('3.1.0')
    expect(await new Validator().validate(document)).toEqual({ valid: true })
    expect(Object.keys(document.paths).sort()).toEqual(['/', '/activity', '/activity/stream', '/api/openapi.json', '/health', '/ready', '/status'])
    const activity = document.paths['/activity'].get
    expect(activity.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name)).toEqual([
      'name',
      'address',
      'fromBlock',
      'toBlock',
      'limit',
      'cursor',
    ])
    expect(Object.keys(activity.responses).sort()).toEqual(['200', '304', '400', '404', '431', '503'])
    expect(Object.keys(document.components.schemas).sort()).toEqual([
      'ActivityEvent',
      'ActivityPage',
      'ActivityQueryProblem',
      'ActivitySnapshot',
      'ActivityStreamMessage',
      'IndexerReadiness',
      'IndexerStatus',
      'IndexerUnavailable',
    ])
    expect(document).toEqual(indexerOpenApiDocument(packageJson.version))
    expect(document.components.schemas.ActivityPage.required).toContain('nextCursor')
  })
})
