// Behind a load balancer whose backends lag each other, the nonce keeper must never call
// a slot `foreign` (its nonce taken by another process) from one backend's nonce and
// another's missing receipt: that told the client of a settled order "not settled,
// retry". The keeper reads the key's nonce at a block number, and that block and the
// receipts together in one batch, so a backend behind that block says nothing; and a
// node that serves a block's receipts a moment after the block is looked at again
// before anything is called foreign.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Address, createPublicClient, type Hex, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createKeyGuard, createNonceKeeper, createSlotWatch, createTxSigner } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../src/wire/index.ts'
import { type Answer, expectMoneySafe } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer } from '../helpers/relayer.ts'
import { startLaggingRpc } from './support/laggingRpc.ts'

let devnet: Devnet
let rpc: ReturnType<typeof startLaggingRpc>
beforeAll(async () => {
  devnet = await startDevnet()
  // Seed 2 picks the backends in an order that called the slot foreign when nonce and receipt were read apart.
  rpc = startLaggingRpc(devnet.rpcUrl, 3, 2)
}, 60_000)
afterAll(async () => {
  rpc?.stop()
  await devnet?.stop()
})

test('a slot whose tx was mined, looked at by the keeper through backends one of which is 3 blocks behind: never foreign; resolved settled from a backend that has the block', async () => {
  await keccakReady
  const account = privateKeyToAccount(devnetAccounts.spare.privateKey)
  const nonce = await devnet.publicClient.getTransactionCount({ address: account.address })
  const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: devnetAccounts.payee.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
  const hash = keccak256(raw)
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  await journal.record([{ nonce, orderHash: `0x${'ee'.repeat(32)}`, consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: 0 } }])
  await devnet.publicClient.request({ method: 'eth_sendRawTransaction', params: [raw] })
  // Two more blocks: the lagging backend has not seen the tx's block.
  await devnet.testClient.mine({ blocks: 2 })
  const client = createPublicClient({ transport: http(rpc.url, { retryCount: 0 }) }) as PublicClient
  const batchClient = createPublicClient({ transport: http(rpc.url, { retryCount: 0, batch: true }) }) as PublicClient
  const logger = createMemoryLogger()
  const keyGuard = createKeyGuard({ logger, quietMs: 60_000 })
  const watch = createSlotWatch({ client, batchClient, journal, logger, describe: async () => undefined })
  const fees = { fresh: async () => ({ maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }) } as never
  const keeper = createNonceKeeper({ client, account, chainId: devnet.chainId, fees, watch, logger, reviveAfterMs: 0, wouldRevert: async () => undefined, signer: createTxSigner({ account, logger }), keyGuard })
  // Every turn of the balancer: each round asks both backends in some order.
  for (let round = 0; round < 12 && journal.slot(nonce)?.status === 'pending'; round++) await keeper.tick().catch(() => undefined)
  expect(journal.slot(nonce)).toMatchObject({ status: 'settled', txHash: hash })
  expect(keyGuard.conflict()).toBeUndefined()
  expect(logger.lines.filter((line) => /foreign|another process/.test(line))).toEqual([])
  journal.close()
})

/**
 * A node whose head is read just before a block lands: `eth_blockNumber` answers one block
 * behind what the node holds, alone or in a batch, as when the newest block is mined
 * between the head's read and the next call.
 */
function startHeadBehindRpc(upstream: string) {
  const forward = async (body: unknown) => (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
  const behind = (call: { method: string }, answer: { result?: unknown }) =>
    call.method === 'eth_blockNumber' && typeof answer.result === 'string' ? { ...answer, result: `0x${(BigInt(answer.result) - 1n).toString(16)}` } : answer
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { method: string } | { method: string }[]
      const answer = (await forward(body)) as { result?: unknown } | { result?: unknown }[]
      if (!Array.isArray(body)) return Response.json(behind(body, answer as { result?: unknown }))
      return Response.json((answer as { result?: unknown }[]).map((each, i) => behind(body[i]!, each)))
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

test("a block that lands between the head's read and the nonce's: the key's own tx in it is not taken by another process", async () => {
  await keccakReady
  const proxy = startHeadBehindRpc(devnet.rpcUrl)
  const account = privateKeyToAccount(devnetAccounts.deployer.privateKey)
  const nonce = await devnet.publicClient.getTransactionCount({ address: account.address })
  const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: devnetAccounts.payee.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
  const hash = keccak256(raw)
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  await journal.record([{ nonce, orderHash: `0x${'ef'.repeat(32)}`, consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: 0 } }])
  // Mined in the newest block: the head the proxy gives is the block before it.
  await devnet.publicClient.request({ method: 'eth_sendRawTransaction', params: [raw] })
  try {
    for (const batch of [false, true]) {
      const client = createPublicClient({ transport: http(proxy.url, { retryCount: 0, batch }) }) as PublicClient
      const logger = createMemoryLogger()
      const keyGuard = createKeyGuard({ logger, quietMs: 60_000 })
      const watch = createSlotWatch({ client, batchClient: client, journal, logger, describe: async () => undefined })
      const fees = { fresh: async () => ({ maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }) } as never
      const keeper = createNonceKeeper({ client, account, chainId: devnet.chainId, fees, watch, logger, reviveAfterMs: 0, wouldRevert: async () => undefined, signer: createTxSigner({ account, logger }), keyGuard })
      await keeper.tick()
      expect(journal.slot(nonce)?.status).not.toBe('foreign')
      expect(keyGuard.conflict()).toBeUndefined()
      expect(logger.lines.filter((line) => /foreign|another process|not in this relayer's journal/.test(line))).toEqual([])
    }
  } finally {
    proxy.stop()
    journal.close()
  }
})

/**
 * A node that serves a block's receipts a moment after the block itself (its head and its
 * nonces already include it): `eth_getTransactionReceipt` answers null for a receipt in
 * the newest block, alone or in a batch.
 */
function startLateReceiptsRpc(upstream: string) {
  const forward = async (body: unknown) => (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
  const head = async () => BigInt(((await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber' })) as { result: string }).result)
  const late = (call: { method: string }, answer: { result?: { blockNumber?: string } | null }, newest: bigint) =>
    call.method === 'eth_getTransactionReceipt' && answer.result?.blockNumber !== undefined && BigInt(answer.result.blockNumber) >= newest ? { ...answer, result: null } : answer
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { method: string } | { method: string }[]
      const newest = await head()
      const answer = (await forward(body)) as { result?: { blockNumber?: string } | null } | { result?: { blockNumber?: string } | null }[]
      if (!Array.isArray(body)) return Response.json(late(body, answer as { result?: { blockNumber?: string } | null }, newest))
      return Response.json((answer as { result?: { blockNumber?: string } | null }[]).map((each, i) => late(body[i]!, each, newest)))
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

test("receipts served a moment after their block: the key's own tx in the newest block is not taken by another process; it is settled once the receipt comes", async () => {
  await keccakReady
  const proxy = startLateReceiptsRpc(devnet.rpcUrl)
  const account = privateKeyToAccount(devnetAccounts.laneOperator.privateKey)
  const nonce = await devnet.publicClient.getTransactionCount({ address: account.address })
  const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: devnetAccounts.payee.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
  const hash = keccak256(raw)
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  await journal.record([{ nonce, orderHash: `0x${'ed'.repeat(32)}`, consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: 0 } }])
  await devnet.publicClient.request({ method: 'eth_sendRawTransaction', params: [raw] })
  try {
    const client = createPublicClient({ transport: http(proxy.url, { retryCount: 0, batch: true }) }) as PublicClient
    const logger = createMemoryLogger()
    const keyGuard = createKeyGuard({ logger, quietMs: 60_000 })
    const watch = createSlotWatch({ client, batchClient: client, journal, logger, describe: async () => undefined })
    const fees = { fresh: async () => ({ maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }) } as never
    const keeper = createNonceKeeper({ client, account, chainId: devnet.chainId, fees, watch, logger, reviveAfterMs: 0, wouldRevert: async () => undefined, signer: createTxSigner({ account, logger }), keyGuard })
    // Two looks at the same head, right after each other: the receipt is not served yet.
    await keeper.tick()
    await keeper.tick()
    expect(journal.slot(nonce)?.status).toBe('pending')
    // The next block: the receipt is served, and the slot is settled by it.
    await devnet.testClient.mine({ blocks: 1 })
    await keeper.tick()
    expect(journal.slot(nonce)).toMatchObject({ status: 'settled', txHash: hash })
    expect(keyGuard.conflict()).toBeUndefined()
    expect(logger.lines.filter((line) => /foreign|another process|not in this relayer's journal/.test(line))).toEqual([])
  } finally {
    proxy.stop()
    journal.close()
  }
})

test('a relayer behind that load balancer: every order settles once and is answered 200; no slot is called foreign', async () => {
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  const key = devnetAccounts.secondRelayer.address as Address
  const fromBlock = (await devnet.publicClient.getBlockNumber()) + 1n
  const answers: Answer[] = []
  try {
    for (let wave = 0; wave < 4; wave++) {
      const requests = await Promise.all(Array.from({ length: 5 }, () => signed(devnet, allocationOrder(devnet))))
      const got = await Promise.all(requests.map((request) => relayer.post(request)))
      for (const [i, answer] of got.entries()) answers.push({ orderHash: requests[i]!.orderHash as Hex, status: answer.status, body: answer.body })
    }
    expect(answers.map((answer) => [answer.status, answer.body.message])).toEqual(answers.map(() => [200, undefined]))
    expect(relayer.logger.lines.filter((line) => /foreign|another process|not in this relayer's journal/.test(line))).toEqual([])
    await expectMoneySafe(devnet, { key, fromBlock, settle: answers.map((a) => a.orderHash), answers })
  } finally {
    await relayer.stop()
  }
}, 60_000)
