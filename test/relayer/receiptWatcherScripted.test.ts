// The receipt watcher against a scripted node: a block holding one tx of the journal, a
// log from it, and a receipt it never gives (a tx a reorg took out has none), which a
// real anvil cannot show. The watcher tells the success by its log and reads no receipt
// for it in the look; it reads the receipt after the look, for what the tx cost.
// A waiter is handed its resolved slot, read back once for the whole look.
import { expect, test } from 'bun:test'
import { createPublicClient, custom, type Hex, type PublicClient } from 'viem'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { type Journal, openJournal } from '../../src/relayer/journal/index.ts'
import { createSlotWatch } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { signedTx } from '../../scripts/lib/index.ts'

const txHash = `0x${'c1'.repeat(32)}` as Hex
const blockHash = `0x${'b1'.repeat(32)}` as Hex
const broker = `0x${'0d'.repeat(20)}` as Hex
const orderCall = '0xabcdef' as Hex

/**
 * One block (number 5) holding `txHash`, which left one log at the Broker; no receipt is
 * ever given. `head` is what eth_blockNumber says; logs asked by number name `numberedHash`.
 */
function scriptedNode(options: { head?: () => number; numberedHash?: Hex; receipt?: () => unknown } = {}) {
  const calls: string[] = []
  const client = createPublicClient({
    transport: custom(
      {
        request: async ({ method, params }: { method: string; params: unknown[] }) => {
          calls.push(method)
          if (method === 'eth_blockNumber') return `0x${(options.head?.() ?? 5).toString(16)}`
          if (method === 'eth_getBlockByNumber') return params[0] === '0x5' ? { hash: blockHash, transactions: [txHash] } : null
          if (method === 'eth_getLogs') {
            const byNumber = !(params[0] as { blockHash?: Hex }).blockHash
            calls.push(byNumber ? 'eth_getLogs by number' : 'eth_getLogs by hash')
            const from = byNumber ? (options.numberedHash ?? blockHash) : blockHash
            return [{ address: broker, topics: [`0x${'00'.repeat(32)}`], data: '0x', transactionHash: txHash, blockHash: from }]
          }
          if (method === 'eth_getTransactionReceipt') return options.receipt?.() ?? null
          throw new Error(`unexpected ${method}`)
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient
  return { client, calls }
}

async function journalWithOnePending() {
  const journal = openJournal(':memory:', { chainId: 31337, address: devnetAccounts.relayer.address })
  const tx = { hash: txHash, nonce: 0, raw: signedTx({ nonce: 0, to: broker, data: orderCall, gas: 100_000n }), kind: 'order' as const, signedAt: Date.now() }
  await journal.record([{ nonce: 0, orderHash: `0x${'ee'.repeat(32)}`, consumer: null, adapter: null, payToken: null, tx }])
  return journal
}

const count = (calls: string[], method: string) => calls.filter((each) => each === method).length

/** The journal, with the calls to one of its methods counted. */
function countingCalls(journal: Journal, method: 'slot' | 'pendingCallees') {
  const counter = { count: 0, journal }
  counter.journal = new Proxy(journal, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (key !== method || typeof value !== 'function') return value
      return (...args: unknown[]) => {
        counter.count++
        return value.apply(target, args)
      }
    },
  })
  return counter
}

test('a success told by its log: settled with no receipt read in the look; its receipt is read after it for what the tx cost, again at each look until the node gives it, then no more', async () => {
  let asked = 0
  // The node has no receipt for the first three asks (not indexed yet), then gives it.
  const receipt = () => (++asked <= 3 ? null : { transactionHash: txHash, blockNumber: '0x5', status: '0x1', gasUsed: '0x186a0', effectiveGasPrice: '0x3b9aca00', logs: [] })
  const { client, calls } = scriptedNode({ receipt })
  const journal = await journalWithOnePending()
  const described: string[] = []
  const { watcher } = createSlotWatch({ client, journal, logger: createMemoryLogger(), describe: async (_, receipt) => (described.push(receipt.status), undefined) })
  await watcher.tick()
  expect(journal.slot(0)).toMatchObject({ status: 'settled', txHash, blockNumber: 5n, spentWei: null, minedAt: expect.any(Number) })
  expect(described).toEqual(['success'])
  // Later looks (nothing pending) only read the cost, until it is known.
  for (let i = 0; i < 10; i++) await watcher.tick()
  expect(journal.slot(0)?.spentWei).toBe(100_000n * 1_000_000_000n)
  expect(count(calls, 'eth_getTransactionReceipt')).toBe(4)
  expect(count(calls, 'eth_getLogs')).toBe(1)
  journal.close()
})

test('a waiter on the nonce is handed its resolved slot: no read of its own after the look', async () => {
  const { client } = scriptedNode()
  const journal = await journalWithOnePending()
  const slotReads = countingCalls(journal, 'slot')
  const { watcher, life } = createSlotWatch({ client, journal: slotReads.journal, logger: createMemoryLogger(), describe: async () => undefined })
  const waiting = life.outcome(0, 10_000)
  // outcome() read the slot once (still pending) before it waits.
  expect(slotReads.count).toBe(1)
  await watcher.tick()
  expect(await waiting).toMatchObject({ nonce: 0, status: 'settled', txHash, blockNumber: 5n })
  expect(slotReads.count).toBe(1)
  journal.close()
})

test('a pushed head\'s logs, asked by number with its tx hashes, are used when they name its hash (the callees read once, for that batch); from another block (a reorg between the calls), they are dropped and asked again by hash', async () => {
  for (const numberedHash of [blockHash, `0x${'b2'.repeat(32)}` as Hex]) {
    let head = 4
    const { client, calls } = scriptedNode({ head: () => head, numberedHash })
    const journal = await journalWithOnePending()
    const calleeReads = countingCalls(journal, 'pendingCallees')
    const { watcher } = createSlotWatch({ client, batchClient: client, journal: calleeReads.journal, logger: createMemoryLogger(), describe: async () => undefined })
    await watcher.prime()
    head = 5
    await watcher.tick(5n)
    expect(journal.slot(0)).toMatchObject({ status: 'settled', txHash, blockNumber: 5n })
    expect(count(calls, 'eth_getLogs by number')).toBe(1)
    expect(count(calls, 'eth_getLogs by hash')).toBe(numberedHash === blockHash ? 0 : 1)
    expect(calleeReads.count).toBe(numberedHash === blockHash ? 1 : 2)
    // None to tell the success: only the read of what it cost, after the look.
    expect(count(calls, 'eth_getTransactionReceipt')).toBe(1)
    journal.close()
  }
})

test("a slot's order tx mined after a filler replaced it is described by the order tx's call, not the filler's", async () => {
  const { client } = scriptedNode()
  const journal = await journalWithOnePending()
  const filler = { hash: `0x${'f1'.repeat(32)}` as Hex, nonce: 0, raw: signedTx({ nonce: 0, to: devnetAccounts.relayer.address, gas: 21_000n }), kind: 'filler' as const, signedAt: Date.now() }
  await journal.replace(filler)
  expect(journal.slot(0)).toMatchObject({ txHash: filler.hash, data: '0x', gas: 21_000n })
  const described: { to: Hex; data: Hex; gas: bigint; txHash: Hex }[] = []
  const describe = async ({ to, data, gas, txHash }: { to: Hex; data: Hex; gas: bigint; txHash: Hex }) => (described.push({ to, data, gas, txHash }), undefined)
  const { watcher } = createSlotWatch({ client, journal, logger: createMemoryLogger(), describe })
  await watcher.tick()
  // The block holds the order's tx: it is the one described, and the slot's.
  expect(described).toEqual([{ to: broker, data: orderCall, gas: 100_000n, txHash }])
  expect(journal.slot(0)).toMatchObject({ status: 'settled', txHash, to: broker, data: orderCall, gas: 100_000n })
  journal.close()
})
