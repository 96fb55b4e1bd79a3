import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import { getAddress } from 'viem'
import { lienRegistryAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, seededLienId, startDevnet } from '../../src/devnet/index.ts'
import { ActivitySnapshotSchema, type ActivityEvent } from '../../src/wire/index.ts'
import { logPositions, runRegistryFlow } from './registryFlow.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let indexer: TestIndexer
let addresses: [string, string, string, string]

beforeAll(async () => {
  devnet = await startDevnet()
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  addresses = [getAddress(registry), getAddress(inbox), getAddress(pool), getAddress(escrow)]
  indexer = await startTestIndexer(devnet)
})

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

/** Positions (block, logIndex, tx) of every log of the four contracts so far, straight from the node. */
async function positionsOnChain() {
  const logs = await devnet.publicClient.getLogs({ address: addresses as `0x${string}`[], fromBlock: 0n, toBlock: 'latest' })
  return logs.map((log) => ({ blockNumber: log.blockNumber!.toString(), logIndex: log.logIndex!, transactionHash: log.transactionHash! }))
}

describe('GET /activity after a sync', () => {
  test('lists the deployment and the seeded lien, LienRecorded with exactly lienId, borrower, expiresAt', async () => {
    await indexer.sync.syncOnce()
    const [borrower, expiresAt] = await devnet.publicClient.readContract({
      address: devnet.manifest.contracts.registry,
      abi: lienRegistryAbi,
      functionName: 'liens',
      args: [seededLienId],
    })
    const [registry, inbox, pool, escrow] = addresses
    const positions = await positionsOnChain()
    const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })

    const response = await indexer.get('/activity')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(v.safeParse(ActivitySnapshotSchema, response.json).success).toBe(true)
    expect(response.json).toEqual({
      source: 'chain',
      chainId: 421614,
      addresses,
      deployedAt: devnet.manifest.deployedAt,
      indexedThrough: head.toString(),
      head: head.toString(),
      lagBlocks: 0,
      stale: false,
      truncated: false,
      events: [
        { name: 'Bound', address: registry, ...positions[0], fields: { inbox, escrow } },
        { name: 'EscrowSet', address: pool, ...positions[1], fields: { escrow } },
        {
          name: 'LienProposed',
          address: inbox,
          ...positions[2],
          fields: { lienId: seededLienId, securedParty: devnetAccounts.lender.address, borrower: devnetAccounts.borrower.address, expiresAt: expiresAt.toString() },
        },
        { name: 'LienConfirmed', address: inbox, ...positions[3], fields: { lienId: seededLienId, borrower: devnetAccounts.borrower.address } },
        { name: 'LienRecorded', address: registry, ...positions[4], fields: { lienId: seededLienId, borrower, expiresAt: expiresAt.toString() } },
      ],
    })
    expect(borrower).toBe(devnetAccounts.borrower.address)
    expect(positions).toHaveLength(5)
  })

  test('a whole lien life (propose, confirm, deposit, fund, repay in full) appears as its events in chain order', async () => {
    const before = indexer.sync.snapshot().events.length
    const flow = await runRegistryFlow(devnet, 'life')
    await indexer.sync.syncOnce()
    const [registry, inbox, pool, escrow] = addresses
    const { lender, borrower } = devnetAccounts
    const at = (name: keyof typeof flow.receipts, index: number) => logPositions(flow.receipts[name], addresses)[index]!
    const amount = flow.amount.toString()
    const lienId = flow.lienId

    const events = indexer.sync.snapshot().events.slice(before)
    expect(events).toEqual([
      { name: 'LienProposed', address: inbox, ...at('propose', 0), fields: { lienId, securedParty: lender.address, borrower: borrower.address, expiresAt: flow.expiresAt.toString() } },
      { name: 'LienConfirmed', address: inbox, ...at('confirm', 0), fields: { lienId, borrower: borrower.address } },
      { name: 'LienRecorded', address: registry, ...at('confirm', 1), fields: { lienId, borrower: borrower.address, expiresAt: flow.expiresAt.toString() } },
      { name: 'Deposited', address: pool, ...at('deposit', 0), fields: { lender: lender.address, amount } },
      { name: 'LoanFunded', address: pool, ...at('fund', 0), fields: { lienId, lender: lender.address, borrower: borrower.address, amount } },
      { name: 'RepaymentCredited', address: pool, ...at('repay', 0), fields: { lienId, lender: lender.address, amount, remaining: '0' } },
      { name: 'Repaid', address: escrow, ...at('repay', 1), fields: { lienId, payer: borrower.address, amount, remaining: '0' } },
      { name: 'LienReleased', address: registry, ...at('repay', 2), fields: { lienId } },
    ])
    // Chain order across the whole feed: strictly increasing (blockNumber, logIndex).
    const all = indexer.sync.snapshot().events
    const key = (e: ActivityEvent) => BigInt(e.blockNumber) * 1_000_000n + BigInt(e.logIndex)
    for (let i = 1; i < all.length; i++) expect(key(all[i]!) > key(all[i - 1]!)).toBe(true)
  })

  test('answers 304 to a matching If-None-Match, and a new ETag once the chain moves', async () => {
    const first = await indexer.get('/activity')
    const etag = first.headers.get('etag')
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(first.headers.get('cache-control')).toBe('no-cache')

    const again = await indexer.get('/activity', { headers: { 'If-None-Match': etag! } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect((await indexer.get('/activity', { headers: { 'If-None-Match': `"other", W/${etag}` } })).status).toBe(304)
    expect((await indexer.get('/activity', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200)

    await devnet.testClient.mine({ blocks: 1 })
    await indexer.sync.syncOnce()
    const moved = await indexer.get('/activity', { headers: { 'If-None-Match': etag! } })
    expect(moved.status).toBe(200)
    expect(moved.headers.get('etag')).not.toBe(etag)
    expect((moved.json as { indexedThrough: string }).indexedThrough).toBe((await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toString())
  })

  test('builds the body once per indexed state, not per request', async () => {
    const a = indexer.indexer.sync.snapshot()
    const b = indexer.indexer.sync.snapshot()
    expect(b).toBe(a)
  })

  test('retention keeps the newest events and marks the feed truncated', async () => {
    const capped = await startTestIndexer(devnet, { overrides: { retention: 3 } })
    try {
      await capped.sync.syncOnce()
      const full = indexer.sync.snapshot().events
      const snapshot = capped.sync.snapshot()
      expect(snapshot.truncated).toBe(true)
      expect(snapshot.events).toEqual(full.slice(-3))
      expect(snapshot.events.map((e) => e.name)).toEqual(['RepaymentCredited', 'Repaid', 'LienReleased'])
      expect(indexer.sync.snapshot().truncated).toBe(false)
    } finally {
      await capped.stop()
    }
  })
})

describe('the other routes', () => {
  test('GET /health answers ok as plain text', async () => {
    const response = await indexer.get('/health')
    expect(response.status).toBe(200)
    expect(response.text).toBe('ok')
    expect(response.headers.get('content-type')).toStartWith('text/plain')
  })

  test('unknown paths and methods answer 404 not found, as plain text', async () => {
    for (const [path, method] of [['/', 'POST'], ['/status', 'POST'], ['/index.html', 'GET'], ['/liens/0x01', 'GET'], ['/isEncumbered', 'GET'], ['/activity', 'POST'], ['/confirmationsx', 'GET']] as const) {
      const response = await indexer.get(path, { method })
      expect({ path, method, status: response.status, text: response.text }).toEqual({ path, method, status: 404, text: 'not found' })
      expect(response.headers.get('content-type')).toStartWith('text/plain')
    }
  })

  test('the debtor confirmation families answer 501 with a JSON body, never 404', async () => {
    for (const [path, method] of [
      ['/confirmations', 'GET'],
      ['/confirmations/abc', 'POST'],
      ['/contacts', 'GET'],
      ['/receipts/0x1234', 'GET'],
    ] as const) {
      const response = await indexer.get(path, { method })
      expect(response.status).toBe(501)
      expect(response.json).toEqual({
        ok: false,
        code: 'NOT_IMPLEMENTED',
        message: 'the debtor confirmation flow is not served by this process: /confirmations, /contacts and /receipts are reserved for it',
      })
    }
  })
})

describe('the sync loop', () => {
  test('follows the head on its own every pollMs', async () => {
    const looping = await startTestIndexer(devnet, { loop: true })
    try {
      await devnet.testClient.mine({ blocks: 3 })
      const head = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toString()
      const deadline = Date.now() + 5_000
      let snapshot = looping.sync.snapshot()
      while (snapshot.indexedThrough !== head && Date.now() < deadline) {
        await Bun.sleep(20)
        snapshot = looping.sync.snapshot()
      }
      expect({ indexedThrough: snapshot.indexedThrough, head: snapshot.head, lagBlocks: snapshot.lagBlocks, stale: snapshot.stale }).toEqual({
        indexedThrough: head,
        head,
        lagBlocks: 0,
        stale: false,
      })
      expect(snapshot.events).toEqual(indexer.sync.snapshot().events)
    } finally {
      await looping.stop()
    }
  })
})
