// The nonce keeper against a node that keeps a priced-out transaction in its pool, as
// geth does and anvil cannot (anvil evicts it: droppedTransaction.test.ts and the
// chaos suite cover the paths a real anvil can show). The node is a script answering
// the calls involved.
import { expect, test } from 'bun:test'
import { createPublicClient, custom, type Hex, type PublicClient, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { type BlockPace, createBlockPace, createNonceKeeper, createSlotWatch, createTxSigner, type TxSigner, type WouldRevert } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../src/wire/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

const account = privateKeyToAccount(devnetAccounts.relayer.privateKey)
const gwei = 10n ** 9n
const toHex = (n: bigint) => `0x${n.toString(16)}`

/** A node whose pool holds every tx sent to it, unmined; the key's mined nonce is 7. */
function poolNode(baseFeePerGas: bigint) {
  const pool = new Map<Hex, Hex>()
  const block = {
    number: '0x10', hash: `0x${'aa'.repeat(32)}`, parentHash: `0x${'bb'.repeat(32)}`, timestamp: '0x1', baseFeePerGas: toHex(baseFeePerGas),
    gasLimit: '0x1c9c380', gasUsed: '0x0', transactions: [], logsBloom: `0x${'00'.repeat(256)}`, miner: `0x${'00'.repeat(20)}`,
    difficulty: '0x0', extraData: '0x', nonce: '0x0000000000000000', size: '0x0', stateRoot: `0x${'00'.repeat(32)}`,
    receiptsRoot: `0x${'00'.repeat(32)}`, transactionsRoot: `0x${'00'.repeat(32)}`, sha3Uncles: `0x${'00'.repeat(32)}`, uncles: [], mixHash: `0x${'00'.repeat(32)}`,
  }
  const client = createPublicClient({
    transport: custom({
      request: async ({ method, params }: { method: string; params: [Hex] }) => {
        if (method === 'eth_getTransactionByHash') return pool.has(params[0]) ? { hash: params[0], blockNumber: null } : null
        if (method === 'eth_sendRawTransaction') {
          pool.set(keccak256(params[0]), params[0])
          return keccak256(params[0])
        }
        if (method === 'eth_getTransactionCount') return '0x7'
        if (method === 'eth_blockNumber') return block.number
        if (method === 'eth_getBlockByNumber') return block
        throw new Error(`unexpected ${method}`)
      },
    }, { retryCount: 0 }),
  }) as PublicClient
  return { client, pool }
}

/** A keeper whose journal holds nonce 7, sent long ago at fee cap `feeCap`, pooled by a node at base fee `baseFee`; fresh fees are 61 gwei. */
async function pooledAt({
  baseFee,
  feeCap,
  signedAt = 0,
  pace,
  reviveAfterMs = 1_000,
  wouldRevert = async () => undefined,
  signer,
}: { baseFee: bigint; feeCap: bigint; signedAt?: number; pace?: BlockPace; reviveAfterMs?: number; wouldRevert?: WouldRevert; signer?: TxSigner }) {
  await keccakReady
  const node = poolNode(baseFee)
  const logger = createMemoryLogger()
  const journal = openJournal(':memory:', { chainId: 421614, address: account.address })
  const call = { to: devnetAccounts.spare.address, data: '0x1234' as Hex, gas: 100_000n }
  const raw = await account.signTransaction({ type: 'eip1559', chainId: 421614, nonce: 7, ...call, maxFeePerGas: feeCap, maxPriorityFeePerGas: gwei })
  const hash = keccak256(raw)
  await journal.record([{ nonce: 7, orderHash: `0x${'ee'.repeat(32)}`, consumer: null, adapter: null, payToken: null, tx: { hash, nonce: 7, raw, kind: 'order', signedAt } }])
  await node.client.request({ method: 'eth_sendRawTransaction', params: [raw] })
  const fees = { fresh: async () => ({ maxFeePerGas: 61n * gwei, maxPriorityFeePerGas: gwei }) } as never
  const watch = createSlotWatch({ client: node.client, journal, logger, describe: async () => undefined, ...(pace ? { pace } : {}) })
  const keeper = createNonceKeeper({ client: node.client, account, chainId: 421614, fees, watch, logger, reviveAfterMs, wouldRevert, signer: signer ?? createTxSigner({ account, logger }) })
  return { node, logger, journal, keeper, hash, raw }
}

test('pooled but priced out by a risen base fee: the nonce is re-signed at ≥ +12.5 % and at least the fresh price, same call, journaled first', async () => {
  const { node, logger, journal, keeper, hash, raw } = await pooledAt({ baseFee: 30n * gwei, feeCap: 10n * gwei })
  await keeper.tick()
  const slot = journal.slot(7)!
  expect(slot.txHash).not.toBe(hash)
  expect(journal.txs(7).map((tx) => [tx.hash, tx.kind, tx.maxFeePerGas])).toEqual([[hash, 'order', 10n * gwei], [slot.txHash, 'replacement', 61n * gwei]])
  const replacement = parseTransaction(node.pool.get(slot.txHash)!)
  const original = parseTransaction(raw)
  expect({ nonce: replacement.nonce, to: replacement.to, data: replacement.data, gas: replacement.gas }).toEqual({ nonce: 7, to: original.to, data: original.data, gas: original.gas })
  expect(replacement.maxPriorityFeePerGas).toBe(gwei + gwei / 8n)
  expect(logger.lines).toEqual([`warn: tx ${hash} is priced out of blocks (the base fee rose above its fee cap); replaced it by tx ${slot.txHash} at a higher fee`])
  journal.close()
})

// Found by the simulator (seed 3737): a slow signer (a remote signer or KMS) held a
// replacement's signature past its order's window; broadcast, it reverted, paid by the key.
test('priced out, and the order\'s window closes while its replacement is signed: the replacement is neither written nor sent; the nonce is filled', async () => {
  let closed = false
  const inner = createTxSigner({ account, logger: createMemoryLogger() })
  const slowSigner: TxSigner = {
    ...inner,
    async signAll(txs) {
      const signed = await inner.signAll(txs)
      closed = true
      return signed
    },
  }
  const { node, logger, journal, keeper, hash } = await pooledAt({
    baseFee: 30n * gwei,
    feeCap: 10n * gwei,
    signer: slowSigner,
    wouldRevert: async () => (closed ? { reverts: 'the authorization expired' } : undefined),
  })
  await keeper.tick()
  const slot = journal.slot(7)!
  expect(journal.txs(7).map((tx) => [tx.hash === hash ? 'the order' : tx.hash, tx.kind])).toEqual([['the order', 'order'], [slot.txHash, 'filler']])
  // Only the filler reached the node: the replacement signed past the window was dropped.
  expect([...node.pool.keys()]).toEqual([hash, slot.txHash])
  expect(parseTransaction(node.pool.get(slot.txHash)!).to?.toLowerCase()).toBe(account.address.toLowerCase())
  expect(logger.lines).toEqual([
    `warn: tx ${hash} is priced out of blocks (the base fee rose above its fee cap) and its order can no longer settle (the authorization expired); filled nonce 7 with a 0-value transfer, tx ${slot.txHash}`,
  ])
  journal.close()
})

test('pooled and still payable, signed moments ago: left alone', async () => {
  const { logger, journal, keeper, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt: Date.now() })
  await keeper.tick()
  expect(journal.slot(7)!.txHash).toBe(hash)
  expect(journal.txs(7)).toHaveLength(1)
  expect(logger.lines).toEqual([])
  journal.close()
})

// Seen in a 2,000-order benchmark: anvil's automine kept the key's next nonce "queued"
// in its pool for good, and every later order waited behind it until its client gave up.
test('pooled at the next nonce, payable, unmined for longer than stuckAfterMs: replaced, which frees the pool', async () => {
  const { node, logger, journal, keeper, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt: Date.now() - 60_000 })
  await keeper.tick()
  const slot = journal.slot(7)!
  expect(slot.txHash).not.toBe(hash)
  expect(journal.txs(7).map((tx) => [tx.hash, tx.kind])).toEqual([[hash, 'order'], [slot.txHash, 'replacement']])
  expect(node.pool.has(slot.txHash)).toBe(true)
  expect(logger.lines).toEqual([
    `warn: tx ${hash} has waited in the node's pool at the key's next nonce for 60 s without being mined; replaced it by tx ${slot.txHash} at a higher fee`,
  ])
  // The replacement is new: the next round leaves it alone.
  await keeper.tick()
  expect(journal.txs(7)).toHaveLength(2)
  journal.close()
})

/** A pace as the watcher would have seen it: the head last moved `movedAgoMs` ago; the key's txs were mined `usualMs` after sending. */
const paceOf = (movedAgoMs: number | undefined, usualMs: number | undefined): BlockPace => ({
  headMoved() {},
  mined() {},
  movedAt: () => (movedAgoMs === undefined ? undefined : Date.now() - movedAgoMs),
  typicalWaitMs: () => usualMs,
})

// Seen in the flood benchmark on anvil's automine (foundry-rs/foundry#10122): a tx at the
// key's next nonce sat in the pool while the node mined nothing, 11 s each time, every
// later order waiting behind it, until stuckAfterMs replaced it.
test('first tx at the next nonce, and no block for 10 × the usual wait: replaced at once, not after stuckAfterMs; its replacement is not nudged again', async () => {
  const { node, logger, journal, keeper, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt: Date.now() - 3_000, pace: paceOf(4_000, 20), reviveAfterMs: 100 })
  await keeper.tick()
  const slot = journal.slot(7)!
  expect(journal.txs(7).map((tx) => [tx.hash, tx.kind])).toEqual([[hash, 'order'], [slot.txHash, 'replacement']])
  expect(node.pool.has(slot.txHash)).toBe(true)
  expect(logger.lines).toHaveLength(1)
  expect(logger.lines[0]).toMatch(
    new RegExp(`^warn: tx ${hash} has waited in the node's pool at the key's next nonce for 3\\.\\d s while the node mined no block for 4\\.\\d s \\(this key's txs were mined 20 ms after sending, at the median\\); replaced it by tx ${slot.txHash} at a higher fee$`),
  )
  // Still no block, and the replacement has waited past 10 × the usual wait: it waits for
  // stuckAfterMs like any other tx all the same (no fee ladder every round).
  const replacedAt = journal.slot(7)!.sentAt
  await waitFor('the clock 300 ms past the replacement', () => Date.now() - replacedAt >= 300, 5_000)
  await keeper.tick()
  expect(journal.txs(7)).toHaveLength(2)
  journal.close()
})

test('the stall is counted from when the tx was signed, across keeper rounds that left it be', async () => {
  const signedAt = Date.now()
  // Usual wait 30 ms: replaced once it has waited 300 ms with no block; rounds every 100 ms.
  const { journal, keeper, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt, pace: paceOf(5_000, 30), reviveAfterMs: 100 })
  await waitFor('150 ms since signing', () => Date.now() - signedAt >= 150, 5_000)
  await keeper.tick()
  expect(journal.txs(7).map((tx) => tx.hash)).toEqual([hash])
  await waitFor('350 ms since signing', () => Date.now() - signedAt >= 350, 5_000)
  await keeper.tick()
  expect(journal.txs(7).map((tx) => tx.kind)).toEqual(['order', 'replacement'])
  journal.close()
})

// The stalls in the benchmark came after pipelined batches: the blocks with the earlier
// txs were mined after the stuck tx had been signed, then nothing more.
test('blocks mined after the tx was signed, then none for 10 × the usual wait: still replaced', async () => {
  const { journal, keeper, hash, logger } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt: Date.now() - 3_000, pace: paceOf(1_500, 20), reviveAfterMs: 100 })
  await keeper.tick()
  expect(journal.txs(7).map((tx) => [tx.hash, tx.kind])).toEqual([[hash, 'order'], [journal.slot(7)!.txHash, 'replacement']])
  expect(logger.lines[0]).toContain('while the node mined no block for 1.5 s')
  journal.close()
})

test('no fast replacement while blocks keep coming, before 10 × the usual wait, or with nothing known of the pace', async () => {
  for (const [movedAgoMs, usualMs] of [
    [300, 20], // a block 0.3 s ago: the chain is mining, just not this tx yet
    [4_000, 12_000], // blocks seconds apart (L1): 3 s without one is normal
    [undefined, 20], // no block seen since start
    [4_000, undefined], // no tx of the key mined yet
  ] as const) {
    const { logger, journal, keeper, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei, signedAt: Date.now() - 3_000, pace: paceOf(movedAgoMs, usualMs) })
    await keeper.tick()
    expect({ movedAgoMs, usualMs, txs: journal.txs(7).map((tx) => tx.hash), lines: logger.lines }).toEqual({ movedAgoMs, usualMs, txs: [hash], lines: [] })
    journal.close()
  }
})

test('the block pace: when the head last moved, and the median wait of the latest 32 mined txs', () => {
  let now = 1_000
  const pace = createBlockPace(() => now)
  expect([pace.movedAt(), pace.typicalWaitMs()]).toEqual([undefined, undefined])
  pace.headMoved()
  for (const sentAt of [990, 900, 980]) pace.mined(sentAt)
  expect([pace.movedAt(), pace.typicalWaitMs()]).toEqual([1_000, 20])
  now = 50_000
  // 32 fast ones push the slow ones out.
  for (let i = 0; i < 32; i++) pace.mined(now - 5)
  pace.mined(now - 60_000)
  expect(pace.typicalWaitMs()).toBe(5)
})
