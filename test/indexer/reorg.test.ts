import { afterAll, beforeAll, expect, test } from 'bun:test'
import { keccak256, stringToHex } from 'viem'
import { lienInboxAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let indexer: TestIndexer

beforeAll(async () => {
  devnet = await startDevnet()
  indexer = await startTestIndexer(devnet)
  await indexer.sync.syncOnce()
})

afterAll(async () => {
  await indexer?.stop()
  await devnet?.stop()
})

const head = () => devnet.publicClient.getBlockNumber({ cacheTime: 0 })

async function propose(label: string) {
  const lienId = keccak256(stringToHex(`reorg test ${label}`))
  const expiresAt = (await devnet.publicClient.getBlock()).timestamp + 86_400n
  const hash = await devnet.wallet('lender').writeContract({
    address: devnet.manifest.contracts.inbox,
    abi: lienInboxAbi,
    functionName: 'propose',
    args: [lienId, devnetAccounts.borrower.address, expiresAt],
  })
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  return { lienId, receipt }
}

const proposed = () =>
  indexer.sync
    .snapshot()
    .events.filter((event) => event.name === 'LienProposed')
    .map((event) => ({ lienId: event.fields.lienId, blockNumber: event.blockNumber, transactionHash: event.transactionHash }))

test('a reorg at the same height (snapshot, revert, mine other blocks) drops the orphaned event and re-indexes', async () => {
  const base = await head()
  const seeded = proposed()
  const checkpoint = await devnet.testClient.snapshot()
  const orphan = await propose('orphan')
  await devnet.testClient.mine({ blocks: 2 })
  await indexer.sync.syncOnce()
  expect(proposed()).toEqual([...seeded, { lienId: orphan.lienId, blockNumber: (base + 1n).toString(), transactionHash: orphan.receipt.transactionHash }])
  expect(indexer.sync.snapshot().indexedThrough).toBe((base + 3n).toString())

  // Replace blocks base+1 … base+3 with other ones: same height, different hashes.
  await devnet.testClient.revert({ id: checkpoint })
  await devnet.testClient.mine({ blocks: 1 })
  const replacement = await propose('replacement')
  await devnet.testClient.mine({ blocks: 1 })
  expect(await head()).toBe(base + 3n)

  await indexer.sync.syncOnce()
  expect(proposed()).toEqual([...seeded, { lienId: replacement.lienId, blockNumber: (base + 2n).toString(), transactionHash: replacement.receipt.transactionHash }])
  const snapshot = indexer.sync.snapshot()
  expect({ indexedThrough: snapshot.indexedThrough, head: snapshot.head, lagBlocks: snapshot.lagBlocks }).toEqual({
    indexedThrough: (base + 3n).toString(),
    head: (base + 3n).toString(),
    lagBlocks: 0,
  })
  expect(indexer.logger.lines).toContain(`warn: indexer: reorg above block ${base}: dropped 1 orphaned events, re-indexing`)
})

test('a reorg to a shorter chain rewinds to the fork point and follows the new blocks', async () => {
  const base = await head()
  const before = indexer.sync.snapshot().events
  const checkpoint = await devnet.testClient.snapshot()
  await devnet.testClient.mine({ blocks: 3 })
  const orphan = await propose('orphan on the longer chain')
  await indexer.sync.syncOnce()
  expect(indexer.sync.snapshot().events.at(-1)?.transactionHash).toBe(orphan.receipt.transactionHash)

  await devnet.testClient.revert({ id: checkpoint })
  await devnet.testClient.mine({ blocks: 1 })
  await indexer.sync.syncOnce()
  const after = indexer.sync.snapshot()
  expect(after.events).toEqual(before)
  expect(after.indexedThrough).toBe((base + 1n).toString())

  const next = await propose('after the shorter reorg')
  await indexer.sync.syncOnce()
  expect(indexer.sync.snapshot().events).toEqual([
    ...before,
    expect.objectContaining({ name: 'LienProposed', blockNumber: (base + 2n).toString(), transactionHash: next.receipt.transactionHash }),
  ])
})

test('anvil_reorg replacing the newest blocks with new transactions is followed', async () => {
  const orphan = await propose('orphan before anvil_reorg')
  await devnet.testClient.mine({ blocks: 2 })
  await indexer.sync.syncOnce()
  const base = await head()
  expect(indexer.sync.snapshot().events.at(-1)?.transactionHash).toBe(orphan.receipt.transactionHash)

  // Reorg the last 3 blocks (the proposal's block among them) into 3 empty ones.
  await devnet.testClient.request({ method: 'anvil_reorg' as never, params: [3, []] as never })
  expect(await head()).toBe(base)
  await indexer.sync.syncOnce()
  const events = indexer.sync.snapshot().events
  expect(events.some((event) => event.transactionHash === orphan.receipt.transactionHash)).toBe(false)
  expect(indexer.sync.snapshot().indexedThrough).toBe(base.toString())
})
