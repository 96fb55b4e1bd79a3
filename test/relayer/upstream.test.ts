// SPEC.md 7.1 UPSTREAM_RPC (502): a relayer whose RPC is dead, and a receipt that
// does not come within RELAYER_RECEIPT_TIMEOUT_MS (anvil with automine off). Never a 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { createExposure } from './support/exposure.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
const relayers: WatchedRelayer[] = []
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  for (const each of relayers) await each.stop()
  await devnet?.stop()
})

async function watched(env: Record<string, string>) {
  const relayer = await startWatchedRelayer(devnet, exposure, { env })
  relayers.push(relayer)
  return relayer
}

describe('a relayer pointed at a dead RPC', () => {
  let dead: WatchedRelayer
  beforeAll(async () => {
    // A free port nothing listens on.
    dead = await watched({ RELAYER_RPC_URL: `http://127.0.0.1:${await freePort()}` })
  })

  test('POST /broker answers 502 UPSTREAM_RPC', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const { status, body } = await dead.post(request)
    expect(status).toBe(502)
    expect(body).toEqual({ ok: false, code: 'UPSTREAM_RPC', message: "the relayer's RPC failed while reading the chain time; retry or try another relayer" })
  })

  test('checks that need no chain still answer, in order: MALFORMED_ORDER, ORDERHASH_MISMATCH', async () => {
    expect((await dead.post(undefined, { raw: 'nope' })).status).toBe(400)
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const mismatch = await dead.post({ ...request, orderHash: `0x${'00'.repeat(32)}` })
    expect(mismatch.body.code).toBe('ORDERHASH_MISMATCH')
  })

  test('GET /info still answers: it needs no RPC', async () => {
    const { status, json } = await dead.request('GET', '/info')
    expect(status).toBe(200)
    expect(json).toMatchObject({ feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.relayer.address })
  })
})

describe('a receipt that does not come in time (automine off)', () => {
  let slow: WatchedRelayer
  beforeAll(async () => {
    slow = await watched({ RELAYER_RECEIPT_TIMEOUT_MS: '400', RELAYER_PK: devnetAccounts.secondRelayer.privateKey })
  })

  test('502 UPSTREAM_RPC naming the txHash; the tx lands once a block is mined', async () => {
    await devnet.testClient.setAutomine(false)
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const { status, body } = await slow.post(request)
    expect(status).toBe(502)
    expect(body.code).toBe('UPSTREAM_RPC')
    const message = String(body.message)
    const txHash = message.match(/tx (0x[0-9a-f]{64})/)?.[1] as Hex
    const follow = `follow GET /broker/${request.orderHash!.toLowerCase()} until it says settled or reverted (sending the same request again is safe: an order is never sent twice)`
    expect(message).toBe(`broadcast as tx ${txHash} but no receipt within 400 ms; it may still settle, in that tx or one replacing it: ${follow}`)

    // The transaction is in the node's pool.
    const pending = await devnet.publicClient.getTransaction({ hash: txHash })
    expect(pending.from).toBe(devnetAccounts.secondRelayer.address.toLowerCase() as Hex)

    // A client retrying while it is still pending is not broadcast a second time: it
    // is told about the same tx.
    const early = await slow.post(request)
    expect({ status: early.status, body: early.body }).toEqual({
      status: 502,
      body: { ok: false, code: 'UPSTREAM_RPC', message: `broadcast earlier as tx ${txHash}, still without a receipt; it may still settle, in that tx or one replacing it: ${follow}` },
    })
    expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.secondRelayer.address, blockTag: 'pending' })).toBe(pending.nonce + 1)

    // It settles with the next block.
    await devnet.testClient.mine({ blocks: 1 })
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: txHash })
    expect(receipt.status).toBe('success')
    await devnet.testClient.setAutomine(true)

    // The client retries: it gets the settlement it missed, with the same txHash.
    const retry = await slow.post(request)
    expect(retry.status).toBe(200)
    expect(retry.body.txHash).toBe(txHash)
    expect(retry.body.orderHash).toBe(request.orderHash)
    expect(retry.body.feeCollected).toBe('50000')
    // Once more: the order is spent, and the answer names the tx that settled it.
    const replay = await slow.post(request)
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: 422,
      body: { ok: false, code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce` },
    })
    // And the relayer's nonce still lines up: the next order settles.
    const next = await signed(devnet, allocationOrder(devnet))
    exposure.request(next)
    expect((await slow.post(next)).status).toBe(200)
  }, 20_000)
})

describe('an RPC that fails one step at a time', () => {
  let rpc: ReturnType<typeof startFlakyRpc>
  let relayer: WatchedRelayer
  beforeAll(async () => {
    rpc = startFlakyRpc(devnet.rpcUrl)
    relayer = await watched({ RELAYER_RPC_URL: rpc.url, RELAYER_RECEIPT_TIMEOUT_MS: '400', RELAYER_PK: devnetAccounts.spare.privateKey })
    // Warm up: chain time, gas price and the adapter's gas limit are known after one order.
    const warm = await signed(devnet, allocationOrder(devnet))
    exposure.request(warm)
    expect((await relayer.post(warm)).status).toBe(200)
  })
  afterAll(() => rpc?.stop())

  const order = async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    return request
  }
  const upstream = (message: string) => ({ status: 502, body: { ok: false, code: 'UPSTREAM_RPC', message } })

  test('the simulation (eth_call) fails: 502, nothing sent', async () => {
    rpc.fail('eth_call')
    try {
      const { status, body } = await relayer.post(await order())
      expect({ status, body }).toEqual(upstream("the relayer's RPC failed during simulation; retry or try another relayer"))
    } finally {
      rpc.heal()
    }
  })

  test('the broadcast never reaches the node: 502; the nonce keeper sends the same signed tx again and a retry shares its settlement', async () => {
    const request = await order()
    rpc.fail('eth_sendRawTransaction', 'refuse')
    let answer: Awaited<ReturnType<WatchedRelayer['post']>>
    try {
      answer = await relayer.post(request)
    } finally {
      rpc.heal()
    }
    expect(answer.status).toBe(502)
    expect(String(answer.body.message)).toMatch(
      /^broadcast failed at the relayer's RPC \(tx 0x[0-9a-f]{64} may or may not have reached the node\): follow GET \/broker\/0x[0-9a-f]{64} until it says settled or reverted \(sending the same request again is safe: an order is never sent twice\)$/,
    )
    // The tx never reached the node: it stays in the journal and the nonce keeper sends
    // it again exactly as signed; a retry shares its outcome (never a second signature).
    const lost = String(answer.body.message).match(/tx (0x[0-9a-f]{64})/)?.[1]
    let retry = await relayer.post(request)
    for (const deadline = Date.now() + 10_000; retry.status !== 200 && Date.now() < deadline; ) retry = await relayer.post(request)
    expect({ status: retry.status, txHash: retry.body.txHash }).toEqual({ status: 200, txHash: lost })
    expect(relayer.logger.lines).toContain(`warn: tx ${lost} was no longer known to the node; sent it again as signed`)
  })

  test('the broadcast reaches the node but its answer is lost: the hash is looked up, found, and the order settles; no second tx', async () => {
    const request = await order()
    rpc.fail('eth_sendRawTransaction', 'loseAnswer')
    let answer: Awaited<ReturnType<WatchedRelayer['post']>>
    try {
      answer = await relayer.post(request)
    } finally {
      rpc.heal()
    }
    expect(answer.status).toBe(200)
    const txHash = answer.body.txHash as Hex
    expect((await devnet.publicClient.getTransactionReceipt({ hash: txHash })).status).toBe('success')
    // Once more: spent, and the answer names the tx that settled it.
    const replay = await relayer.post(request)
    expect({ status: replay.status, body: replay.body }).toEqual({
      status: 422,
      body: { ok: false, code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce` },
    })
    // The nonce was re-synced: the next order settles.
    expect((await relayer.post(await order())).status).toBe(200)
  })

  test('the receipt cannot be read: 502 naming the tx; a retry once the RPC is back returns the settlement', async () => {
    const request = await order()
    rpc.fail('eth_getTransactionReceipt')
    rpc.fail('eth_getLogs')
    let answer: Awaited<ReturnType<WatchedRelayer['post']>>
    try {
      answer = await relayer.post(request)
    } finally {
      rpc.heal()
    }
    const txHash = String(answer.body.message).match(/tx (0x[0-9a-f]{64})/)?.[1] as Hex
    expect({ status: answer.status, body: answer.body }).toEqual(
      upstream(
        `broadcast as tx ${txHash} but no receipt within 400 ms; it may still settle, in that tx or one replacing it: follow GET /broker/${request.orderHash!.toLowerCase()} until it says settled or reverted (sending the same request again is safe: an order is never sent twice)`,
      ),
    )
    const retry = await relayer.post(request)
    expect(retry.status).toBe(200)
    expect(retry.body.txHash).toBe(txHash)
  })
})

test('no key or signature in any log line or body; one access line per request; no 500', () => {
  expect(exposure.leaks()).toEqual([])
  for (const each of relayers) {
    const log = each.accessLog()
    expect(log.access).toEqual(log.expected)
    for (const line of log.access) {
      expect(line).toMatch(accessLinePattern)
      expect(line).not.toMatch(/ 500 /)
    }
  }
})
