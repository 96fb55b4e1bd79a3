// GET /broker/{orderHash}: what a relayer knows about an order — from its journal
// (pending, settled by its tx) or the Broker's logs (settled by any relayer).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { createExposure } from './support/exposure.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const others: WatchedRelayer[] = []
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RECEIPT_TIMEOUT_MS: '300' } })
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  for (const each of [relayer, ...others]) await each?.stop()
  await devnet?.stop()
})

const order = async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  exposure.request(request)
  return request
}
const status = (on: WatchedRelayer, orderHash: string) => on.request('GET', `/broker/${orderHash}`)

test('an order nobody relayed is unknown', async () => {
  const request = await order()
  expect(await status(relayer, request.orderHash!)).toMatchObject({ status: 200, json: { orderHash: request.orderHash, status: 'unknown' } })
})

test('pending while its tx waits for a block, settled with its block once mined', async () => {
  await devnet.testClient.setAutomine(false)
  const request = await order()
  let answer
  try {
    answer = await relayer.post(request)
    expect(answer.body.code).toBe('UPSTREAM_RPC')
    const txHash = String(answer.body.message).match(/tx (0x[0-9a-f]{64})/)![1] as Hex
    expect((await status(relayer, request.orderHash!)).json).toEqual({ orderHash: request.orderHash, status: 'pending', txHash })
    await devnet.testClient.mine({ blocks: 1 })
    const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash: txHash, pollingInterval: 20 })
    // The watcher resolves it from the block's receipts; until then it still reads pending.
    const deadline = Date.now() + 5_000
    let seen = await status(relayer, request.orderHash!)
    while (seen.json?.status === 'pending' && Date.now() < deadline) seen = await status(relayer, request.orderHash!)
    expect(seen.json).toEqual({ orderHash: request.orderHash, status: 'settled', txHash, blockNumber: receipt.blockNumber.toString(), confirmations: 1, final: true })
  } finally {
    await devnet.testClient.setAutomine(true)
  }
})

test("settled by another relayer: found in the Broker's logs", async () => {
  const other = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  others.push(other)
  const request = await order()
  const settled = await other.post(request)
  expect(settled.status).toBe(200)
  const receipt = await devnet.publicClient.getTransactionReceipt({ hash: settled.body.txHash as Hex })
  expect((await status(relayer, request.orderHash!)).json).toEqual({
    orderHash: request.orderHash,
    status: 'settled',
    txHash: settled.body.txHash,
    blockNumber: receipt.blockNumber.toString(),
    confirmations: 1,
    final: true,
  })
})

test("misses are cached: asking again about an unknown order reads no logs until a block comes, then only the new block's", async () => {
  const rpc = startFlakyRpc(devnet.rpcUrl)
  try {
    const watched = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RPC_URL: rpc.url, RELAYER_PK: devnetAccounts.spare.privateKey } })
    others.push(watched)
    const orderHash = `0x${'cd'.repeat(32)}`
    const logCalls = () => rpc.seen.filter((method) => method === 'eth_getLogs').length
    for (let i = 0; i < 5; i++) expect((await status(watched, orderHash)).json).toEqual({ orderHash, status: 'unknown' })
    expect(logCalls()).toBe(1)
    await devnet.testClient.mine({ blocks: 1 })
    expect((await status(watched, orderHash)).json).toEqual({ orderHash, status: 'unknown' })
    expect(logCalls()).toBe(2)
  } finally {
    rpc.stop()
  }
})

test('a malformed orderHash is 400 MALFORMED_ORDER with a JSON body', async () => {
  for (const bad of ['0x1234', `0x${'zz'.repeat(32)}`, 'nope']) {
    expect(await status(relayer, bad)).toMatchObject({
      status: 400,
      json: { ok: false, code: 'MALFORMED_ORDER', message: 'malformed orderHash: must be 32 bytes of hex: 0x followed by 64 hex digits' },
    })
  }
})

test('an RPC that is down: 502 UPSTREAM_RPC, never 500', async () => {
  const dead = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_RPC_URL: `http://127.0.0.1:${await freePort()}` } })
  others.push(dead)
  expect(await status(dead, `0x${'ab'.repeat(32)}`)).toMatchObject({
    status: 502,
    json: { ok: false, code: 'UPSTREAM_RPC', message: "the relayer's RPC failed while reading the Broker's logs; retry or try another relayer" },
  })
})

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.leaks()).toEqual([])
  for (const each of [relayer, ...others]) {
    const log = each.accessLog()
    expect(log.access).toEqual(log.expected)
    for (const line of log.access) expect(line).toMatch(accessLinePattern)
  }
})
