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

type Rpc = { method: string }
type RpcAnswer = { result?: unknown }

/** A proxy to `upstream` that rewrites each answer (alone or in a batch) with `rewrite`, given the call and the node's head. */
function startRewritingRpc(upstream: string, rewrite: (call: Rpc, answer: RpcAnswer, head: bigint) => RpcAnswer) {
  const forward = async (body: unknown) => (await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Rpc | Rpc[]
      const head = BigInt(((await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber' })) as { result: string }).result)
      const answer = (await forward(body)) as RpcAnswer | RpcAnswer[]
      if (!Array.isArray(body)) return Response.json(rewrite(body, answer as RpcAnswer, head))
      return Response.json((answer as RpcAnswer[]).map((each, i) => rewrite(body[i]!, each, head)))
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/**
 * A journal holding one slot of `key`: a transfer signed at its next nonce and sent to the
 * devnet, and a nonce keeper that looks at it through `url` (`batchUrl` for its batches).
 */
async function slotLookedAtThrough(key: Hex, url: string, batchUrl = url) {
  await keccakReady
  const account = privateKeyToAccount(key)
  const nonce = await devnet.publicClient.getTransactionCount({ address: account.address })
  const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: devnetAccounts.payee.address, value: 1n, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n })
  const hash = keccak256(raw)
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  await journal.record([{ nonce, orderHash: keccak256(hash), consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: 0 } }])
  await devnet.publicClient.request({ method: 'eth_sendRawTransaction', params: [raw] })
  const keeperThrough = (batch: boolean) => {
    const client = createPublicClient({ transport: http(url, { retryCount: 0, batch }) }) as PublicClient
    const batchClient = createPublicClient({ transport: http(batchUrl, { retryCount: 0, batch: true }) }) as PublicClient
    const logger = createMemoryLogger()
    const keyGuard = createKeyGuard({ logger, quietMs: 60_000 })
    const watch = createSlotWatch({ client, batchClient, journal, logger, describe: async () => undefined })
    const fees = { fresh: async () => ({ maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n }) } as never
    const keeper = createNonceKeeper({ client, account, chainId: devnet.chainId, fees, watch, logger, reviveAfterMs: 0, wouldRevert: async () => undefined, signer: createTxSigner({ account, logger }), keyGuard })
    /** Nothing called foreign, no conflict on the key. */
    const expectNoForeign = () => {
      expect(journal.slot(nonce)?.status).not.toBe('foreign')
      expect(keyGuard.conflict()).toBeUndefined()
      expect(logger.lines.filter((line) => /foreign|another process|not in this relayer's journal/.test(line))).toEqual([])
    }
    return { keeper, expectNoForeign }
  }
  return { journal, nonce, hash, keeperThrough }
}

test('a slot whose tx was mined, looked at by the keeper through backends one of which is 3 blocks behind: never foreign; resolved settled from a backend that has the block', async () => {
  const { journal, nonce, hash, keeperThrough } = await slotLookedAtThrough(devnetAccounts.spare.privateKey, rpc.url)
  // Two more blocks: the lagging backend has not seen the tx's block.
  await devnet.testClient.mine({ blocks: 2 })
  const { keeper, expectNoForeign } = keeperThrough(false)
  // Every turn of the balancer: each round asks both backends in some order.
  for (let round = 0; round < 12 && journal.slot(nonce)?.status === 'pending'; round++) await keeper.tick().catch(() => undefined)
  expect(journal.slot(nonce)).toMatchObject({ status: 'settled', txHash: hash })
  expectNoForeign()
  journal.close()
})

test("a block that lands between the head's read and the nonce's: the key's own tx in it is not taken by another process", async () => {
  // `eth_blockNumber` answers one block behind what the node holds, as when the newest block is mined between the head's read and the next call.
  const proxy = startRewritingRpc(devnet.rpcUrl, (call, answer) =>
    call.method === 'eth_blockNumber' && typeof answer.result === 'string' ? { ...answer, result: `0x${(BigInt(answer.result) - 1n).toString(16)}` } : answer,
  )
  // Mined in the newest block: the head the proxy gives is the block before it.
  const { journal, keeperThrough } = await slotLookedAtThrough(devnetAccounts.deployer.privateKey, proxy.url)
  try {
    for (const batch of [false, true]) {
      const { keeper, expectNoForeign } = keeperThrough(batch)
      await keeper.tick()
      expectNoForeign()
    }
  } finally {
    proxy.stop()
    journal.close()
  }
})

test("receipts served a moment after their block: the key's own tx in the newest block is not taken by another process; it is settled once the receipt comes", async () => {
  // `eth_getTransactionReceipt` answers null for a receipt in the newest block, while the head and the nonces already include that block.
  const proxy = startRewritingRpc(devnet.rpcUrl, (call, answer, head) => {
    const receipt = answer.result as { blockNumber?: string } | null | undefined
    return call.method === 'eth_getTransactionReceipt' && receipt?.blockNumber !== undefined && BigInt(receipt.blockNumber) >= head ? { ...answer, result: null } : answer
  })
  const { journal, nonce, hash, keeperThrough } = await slotLookedAtThrough(devnetAccounts.laneOperator.privateKey, proxy.url)
  try {
    const { keeper, expectNoForeign } = keeperThrough(true)
    // Two looks at the same head, right after each other: the receipt is not served yet.
    await keeper.tick()
    await keeper.tick()
    expect(journal.slot(nonce)?.status).toBe('pending')
    // The next block: the receipt is served, and the slot is settled by it.
    await devnet.testClient.mine({ blocks: 1 })
    await keeper.tick()
    expect(journal.slot(nonce)).toMatchObject({ status: 'settled', txHash: hash })
    expectNoForeign()
  } finally {
    proxy.stop()
    journal.close()
  }
})

test('a relayer behind that load balancer: every order settles once and is answered 200; no slot is called foreign', async () => {
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  const key = devnetAccounts.secondRelayer.address as Address
  const fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
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
