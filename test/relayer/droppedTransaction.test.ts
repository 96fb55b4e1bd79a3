// A transaction the node accepted and then lost (anvil_dropTransaction stands in for a
// restarted node or an evicted transaction; anvil also evicts one the base fee has
// priced out). Unnoticed, its order would wait out the receipt timeout, and every later
// order of the gas key would queue behind the nonce gap for good. The relayer notices,
// sends the same signed transaction again (or, when the node refuses it as
// underpriced, re-signs its nonce at a higher fee) and the orders settle. A priced-out
// tx that a node keeps in its pool (geth does; anvil cannot) is in reviver.test.ts.
import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { keccak256 } from '../../src/wire/index.ts'
import { createExposure } from './support/exposure.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'
import { startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const exposure = createExposure()
const gasKey = devnetAccounts.relayer.address
let startingBaseFee: bigint

beforeAll(async () => {
  devnet = await startDevnet()
  startingBaseFee = (await devnet.publicClient.getBlock()).baseFeePerGas!
  // Receipts polled every 20 ms, so the node is asked about a missing one after 1 s.
  relayer = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RECEIPT_TIMEOUT_MS: '15000' } })
  const warm = await order()
  expect((await relayer.post(warm)).status).toBe(200)
}, 60_000)
afterEach(async () => {
  // The base fee a test raised is lowered again: the next one's orders pay for themselves as usual.
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: startingBaseFee })
  await devnet.testClient.setAutomine(true)
  await devnet.testClient.mine({ blocks: 1 })
})
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

async function order(feeBps = 50): Promise<RelayRequest> {
  const request = await signed(devnet, allocationOrder(devnet, { feeBps }))
  exposure.request(request)
  return request
}

/** The transaction of `key` (the gas key unless named) with `nonce` once it is in the node's pool. */
async function pooled(nonce: number, key: string = gasKey) {
  for (;;) {
    const content = await devnet.testClient.getTxpoolContent()
    const mine = Object.entries(content.pending).find(([address]) => address.toLowerCase() === key.toLowerCase())?.[1]
    const tx = mine?.[String(nonce)]
    if (tx) return tx
    await Bun.sleep(10)
  }
}

/** With mining off: an order sent to the relayer, its answer still to come, and its tx in the pool at the key's next nonce. */
async function heldOrder(feeBps?: number) {
  await devnet.testClient.setAutomine(false)
  const nonce = await devnet.publicClient.getTransactionCount({ address: gasKey })
  const request = await order(feeBps)
  const answer = relayer.post(request)
  return { nonce, request, answer, tx: await pooled(nonce) }
}

test('a dropped tx is sent again as signed: its order settles with the same txHash, and the order queued behind the gap settles too', async () => {
  const { nonce, answer: firstAnswer, tx: lost } = await heldOrder()
  await devnet.testClient.dropTransaction({ hash: lost.hash })

  // The next order takes the next nonce and waits behind the gap.
  const second = await order()
  const secondAnswer = relayer.post(second)
  await pooled(nonce + 1)

  const revived = `warn: tx ${lost.hash} was no longer known to the node; sent it again as signed`
  await waitFor('the dropped tx sent again', () => relayer.logger.lines.includes(revived))
  await devnet.testClient.mine({ blocks: 1 })

  const [a, b] = await Promise.all([firstAnswer, secondAnswer])
  expect([a.status, b.status]).toEqual([200, 200])
  expect(a.body.txHash).toBe(lost.hash)
  expect(await devnet.publicClient.getTransactionCount({ address: gasKey })).toBe(nonce + 2)
}, 30_000)

test('dropped, then underpriced after the base fee rose: the nonce is re-signed at a higher fee and the order, whose fee still pays for that, settles in the replacement', async () => {
  // 10 % of 10 USDC: worth its gas at ten times the base fee (the usual 50 bps is not: see the next test).
  const { nonce, request, answer, tx: lost } = await heldOrder(1_000)
  await devnet.testClient.dropTransaction({ hash: lost.hash })
  // A base fee ten times the tx's fee cap: the node refuses it as it was signed.
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(lost.maxFeePerGas!) * 10n })
  await devnet.testClient.mine({ blocks: 1 })

  const replacement = await pooled(nonce)
  expect(replacement.hash).not.toBe(lost.hash)
  expect(BigInt(replacement.maxFeePerGas!)).toBeGreaterThan(BigInt(lost.maxFeePerGas!) * 10n)
  expect(replacement.input).toBe(lost.input)
  await devnet.testClient.mine({ blocks: 1 })

  const { status, body } = await answer
  expect(status).toBe(200)
  expect(body.txHash).toBe(replacement.hash)
  expect(body.orderHash).toBe(request.orderHash)
  expect(relayer.logger.lines).toContain(
    `warn: tx ${lost.hash} was refused as underpriced when sent again; replaced it by tx ${replacement.hash} at a higher fee`,
  )
  // Spent once: the replacement settled it, the original never will.
  expect(await devnet.publicClient.getTransactionReceipt({ hash: lost.hash as Hex }).catch(() => null)).toBeNull()
  await devnet.testClient.setAutomine(true)
  const next = await relayer.post(await order(1_000))
  expect({ status: next.status, body: next.body }).toEqual({ status: 200, body: expect.objectContaining({ ok: true }) })
}, 30_000)

test('dropped, then underpriced after the base fee rose past what its fee pays for: its nonce is filled instead, never bumped into a loss; the order is answered, and nothing of it is sent again', async () => {
  const { nonce, request, answer, tx: lost } = await heldOrder()
  await devnet.testClient.dropTransaction({ hash: lost.hash })
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: BigInt(lost.maxFeePerGas!) * 10n })
  await devnet.testClient.mine({ blocks: 1 })

  const filler = await pooled(nonce)
  expect({ to: filler.to?.toLowerCase(), input: filler.input, value: filler.value }).toEqual({ to: gasKey.toLowerCase(), input: '0x', value: '0x0' })
  expect(relayer.logger.lines).toContainEqual(
    expect.stringMatching(new RegExp(`^warn: tx ${lost.hash} was refused as underpriced when sent again and its order would not pay for itself \\(the fee does not pay for the gas: 50000 of .*\\); filled nonce ${nonce} with a 0-value transfer, tx ${filler.hash}$`)),
  )
  await devnet.testClient.mine({ blocks: 1 })
  const { status, body } = await answer
  // Not settled, and nothing spent: the order can still settle (later, or at another relayer), so it is never "build a new order".
  expect({ status, code: body.code, message: body.message }).toEqual({
    status: 402,
    code: 'FEE_BELOW_FLOOR',
    message: expect.stringMatching(
      new RegExp(`^not settled: the fee does not pay for the gas: .*; its tx ${lost.hash} was refused as underpriced when sent again before it was mined and its nonce was filled; nothing was spent on this order and it can still settle: send it again once its fee pays for the gas, or to another relayer$`),
    ),
  })
  expect((await devnet.publicClient.getTransactionReceipt({ hash: filler.hash as Hex })).status).toBe('success')
  expect(await devnet.publicClient.getTransactionReceipt({ hash: lost.hash as Hex }).catch(() => null)).toBeNull()
  // A retry is judged anew (its authorization is unused): at this base fee it still does not pay, and nothing is sent.
  const again = await relayer.post(request)
  expect({ status: again.status, code: again.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
  expect(await devnet.publicClient.getTransactionCount({ address: gasKey, blockTag: 'pending' })).toBe(nonce + 1)
}, 30_000)

test('an order whose wait already gave up: the nonce keeper sends the dropped tx again (no client waiting), and a retry shares it instead of relaying the order at a nonce behind the gap', async () => {
  const impatient = await startWatchedRelayer(devnet, exposure, {
    env: { RELAYER_RECEIPT_TIMEOUT_MS: '400', RELAYER_PK: devnetAccounts.secondRelayer.privateKey },
  })
  try {
    const warm = await order()
    expect((await impatient.post(warm)).status).toBe(200)
    await devnet.testClient.setAutomine(false)
    const request = await order()
    const first = await impatient.post(request)
    expect(first.body.code).toBe('UPSTREAM_RPC')
    const lost = String(first.body.message).match(/tx (0x[0-9a-f]{64})/)![1] as Hex
    await devnet.testClient.dropTransaction({ hash: lost })
    await devnet.testClient.setAutomine(true)

    const revived = `warn: tx ${lost} was no longer known to the node; sent it again as signed`
    await waitFor('the dropped tx sent again', () => impatient.logger.lines.includes(revived))
    const retry = await impatient.post(request)
    expect({ status: retry.status, txHash: retry.body.txHash }).toEqual({ status: 200, txHash: lost })
    expect(impatient.logger.lines).toContain(`warn: tx ${lost} was no longer known to the node; sent it again as signed`)
    expect((await impatient.post(await order())).status).toBe(200)
  } finally {
    await impatient.stop()
  }
}, 30_000)

test('dropped, then refused as signed when sent again: its nonce is filled, its client is told the order can still settle (502, send it again), never to sign a new one; sent again, it settles once', async () => {
  const rpc = startFlakyRpc(devnet.rpcUrl)
  const key = devnetAccounts.spare
  const refusing = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: key.privateKey, RELAYER_RECEIPT_TIMEOUT_MS: '15000' } })
  try {
    expect((await refusing.post(await order())).status).toBe(200)
    await devnet.testClient.setAutomine(false)
    const nonce = await devnet.publicClient.getTransactionCount({ address: key.address })
    const request = await order()
    const answer = refusing.post(request)
    const lost = await pooled(nonce, key.address)
    // The node lost it, and will not take it again as it was signed (as a node that does not serve its tx type does).
    rpc.refuseWhen((call) => call.method === 'eth_sendRawTransaction' && keccak256(call.params[0] as Hex) === lost.hash, 'transaction type not supported')
    await devnet.testClient.dropTransaction({ hash: lost.hash })
    const filler = await pooled(nonce, key.address)
    expect({ to: filler.to?.toLowerCase(), input: filler.input }).toEqual({ to: key.address.toLowerCase(), input: '0x' })
    expect(refusing.logger.lines).toContain(
      `warn: tx ${lost.hash} was no longer known to the node and the node refuses it as signed (transaction type not supported); filled nonce ${nonce} with a 0-value transfer, tx ${filler.hash}`,
    )
    await devnet.testClient.mine({ blocks: 1 })
    const { status, body } = await answer
    expect({ status, code: body.code, message: body.message }).toEqual({
      status: 502,
      code: 'UPSTREAM_RPC',
      message: `not settled: the node refuses its transaction (transaction type not supported); its tx ${lost.hash} was no longer known to the node before it was mined and its nonce was filled; nothing was spent on this order and it can still settle: send the same request again (it is signed anew) or to another relayer`,
    })
    // The same request again: signed anew at the next nonce, settled once.
    await devnet.testClient.setAutomine(true)
    const again = await refusing.post(request)
    expect({ status: again.status, orderHash: again.body.orderHash }).toEqual({ status: 200, orderHash: request.orderHash })
    expect(again.body.txHash).not.toBe(lost.hash)
    expect((await devnet.publicClient.getTransaction({ hash: again.body.txHash as Hex })).nonce).toBe(nonce + 1)
    expect(await devnet.publicClient.getTransactionReceipt({ hash: lost.hash as Hex }).catch(() => null)).toBeNull()
  } finally {
    await refusing.stop()
    rpc.stop()
  }
}, 30_000)

test('a base fee that jumps past the cached gas price: the refused broadcast is re-signed at a fresh price at once, not 502 until the next refresh', async () => {
  // Twice the fee cap the relayer has cached (the tip is 1 gwei), still a price the order's fee pays for.
  const cached = await relayer.relayer.context.submitter.freshFees()
  const base = cached.maxFeePerGas * 2n
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: base })
  await devnet.testClient.mine({ blocks: 1 })
  const { status, body } = await relayer.post(await order())
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined })
  const tx = await devnet.publicClient.getTransaction({ hash: body.txHash as Hex })
  expect(tx.maxFeePerGas!).toBeGreaterThan(base)
  expect(relayer.logger.lines).toContain('warn: the gas price rose past the cached one; re-read it and signed again')
})

// anvil's automine can leave a ready tx in its pool and mine nothing more
// (foundry-rs/foundry#10122; seen in the flood benchmark, 11 s per stall). A node with
// automine off stands in for it: the tx at the key's next nonce waits, no block comes.
test('a node that mines no block while the next nonce waits: the tx is replaced after about a second, not after stuckAfterMs (10 s), and its order settles once, in the replacement', async () => {
  const { nonce, request, answer, tx: stuck } = await heldOrder()
  const nudged = new RegExp(`^warn: tx ${stuck.hash} has waited in the node's pool at the key's next nonce for [\\d.]+ s while the node mined no block`)
  // Well inside the 10 s after which the older rule would replace it.
  await waitFor('the stalled tx replaced within 6 s', () => relayer.logger.lines.some((line) => nudged.test(line)), 6_000)
  const replacement = await pooled(nonce)
  expect(replacement.hash).not.toBe(stuck.hash)
  expect(replacement.input).toBe(stuck.input)
  await devnet.testClient.mine({ blocks: 1 })
  const { status, body } = await answer
  expect({ status, txHash: body.txHash, orderHash: body.orderHash }).toEqual({ status: 200, txHash: replacement.hash, orderHash: request.orderHash })
  expect(await devnet.publicClient.getTransactionReceipt({ hash: stuck.hash as Hex }).catch(() => null)).toBeNull()
  expect(await devnet.publicClient.getTransactionCount({ address: gasKey })).toBe(nonce + 1)
}, 30_000)

test('no key or signature in any log line or body', () => {
  expect(exposure.leaks()).toEqual([])
})
