// What a replica published in Redis of its own order stays true across reorgs: the
// other replica, which answers from it, never says `settled` (or `final`) for a tx the
// chain no longer holds. Two replicas (own keys, one redis-server) with
// RELAYER_CONFIRMATIONS 3; replica A settles each order, anvil_reorg takes its tx out.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import type { BrokerStatus, RelayRequest } from '../../src/wire/index.ts'
import { signedCancellation } from '../chaos/support/cancelAuthorization.ts'
import { brokeredByOrder, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/reorgedOutcomes.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

const keys = [devnetAccounts.relayer, devnetAccounts.secondRelayer]

describe.skipIf(!hasRedisServer)("a replica's published outcome across reorgs", () => {
  let devnet: Devnet
  let redis: TestRedis
  let a: TestRelayer
  let b: TestRelayer
  let fromBlock: bigint

  const startReplica = (index: number) =>
    startTestRelayer(devnet, { env: { RELAYER_PK: keys[index]!.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '1000', RELAYER_CONFIRMATIONS: '3' } })
  const order = async () => (await signed(devnet, allocationOrder(devnet))) as RelayRequest & { orderHash: Hex }
  const status = async (replica: TestRelayer, orderHash: Hex) => (await (await fetch(`${replica.url}/broker/${orderHash}`)).json()) as BrokerStatus
  const reorg = (depth: number, txs: Array<[Hex, number]> = []) => devnet.testClient.request({ method: 'anvil_reorg' as never, params: [depth, txs] as never })

  /** An order settled by replica A, which replica B says settled in that tx and block. */
  async function settledByA() {
    const request = await order()
    const sent = await a.post(request)
    expect(sent.status).toBe(200)
    const txHash = sent.body.txHash as Hex
    const block = (await devnet.publicClient.getTransactionReceipt({ hash: txHash })).blockNumber
    expect(await status(b, request.orderHash)).toMatchObject({ status: 'settled', txHash, blockNumber: block.toString() })
    return { request, txHash, block }
  }

  beforeAll(async () => {
    redis = await startRedis()
    devnet = await startDevnet()
    fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    a = await startReplica(0)
    b = await startReplica(1)
  }, 60_000)
  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await devnet?.stop()
    await redis?.stop()
  }, 30_000)

  test('a tx mined again in a later block: the other replica names that block, not the one the reorg took', async () => {
    const { request, txHash, block: first } = await settledByA()
    await reorg(1)
    await devnet.testClient.mine({ blocks: 1 })
    await waitFor('the same tx mined again', async () => (await devnet.publicClient.getTransactionReceipt({ hash: txHash }).catch(() => null)) !== null, 10_000)
    const again = (await devnet.publicClient.getTransactionReceipt({ hash: txHash })).blockNumber
    expect(again).toBeGreaterThan(first)
    await waitFor(`replica B names block ${again}`, async () => (await status(b, request.orderHash)).blockNumber === again.toString(), 10_000)
    await devnet.testClient.mine({ blocks: 3 })
    await waitFor('final on both replicas', async () => (await status(a, request.orderHash)).final === true && (await status(b, request.orderHash)).final === true, 10_000)
    expect(await status(b, request.orderHash)).toMatchObject({ status: 'settled', txHash, blockNumber: again.toString(), final: true })
  }, 60_000)

  test('the order cancelled in place of its settlement: the other replica stops saying settled, and a retry there is not told it settled', async () => {
    const { request, txHash } = await settledByA()
    await reorg(1, [[await signedCancellation(devnet, request.orderHash), 0]])
    await devnet.testClient.mine({ blocks: 1 })
    await waitFor("replica A's nonce filled", () => a.relayer.context.journal.byOrder(request.orderHash)?.status === 'filled', 10_000)
    await waitFor('replica B no longer says settled', async () => (await status(b, request.orderHash)).status === 'unknown', 10_000)
    await devnet.testClient.mine({ blocks: 5 })
    expect(await status(b, request.orderHash)).toEqual({ orderHash: request.orderHash.toLowerCase() as Hex, status: 'unknown' })
    const retried = await b.post(request)
    expect(retried.status).toBe(422)
    expect(retried.body.message).not.toContain(txHash)
    expect(retried.body.message).not.toContain('already settled')
  }, 60_000)

  test('money: each order settled at most once, nothing from either key reverted, and B sent nothing', async () => {
    const brokered = await brokeredByOrder(devnet)
    for (const [orderHash, txs] of brokered) expect({ orderHash, settledIn: txs.length }).toEqual({ orderHash, settledIn: 1 })
    for (const key of keys) expect((await txsFrom(devnet, key.address as Address, fromBlock)).filter((tx) => tx.status !== 'success')).toEqual([])
    expect(await txsFrom(devnet, keys[1]!.address as Address, fromBlock)).toEqual([])
  }, 30_000)
})
