// A replica publishes each order's signed tx as pending in Redis, while its claim of the
// order still holds, before anything of it is written or sent. A replica cut off from
// Redis right after a broadcast (or dead) leaves the tx there: the replica that takes the
// claim once its lease ends finds it and follows it, where it would have found nothing
// and sent the order again (found by the simulator's partition fault, seed 512: both
// replicas' txs for the order mined). A claim found lost at that moment, or a Redis that
// fails to answer, keeps the order from being sent; a tx Redis may hold and that was
// never broadcast (that answer lost, or the journal failing to write its batch) is taken
// back once Redis answers.
import { RedisClient } from 'bun'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createPublicClient, custom, type Hex, http, type PublicClient, type TransactionSerializableEIP1559 } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { RelayError } from '../../src/relayer/errors.ts'
import type { Journal } from '../../src/relayer/journal/index.ts'
import { createReplicas, type Replicas } from '../../src/relayer/replicas/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccakReady } from '../../src/wire/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { devnetSubmitter } from '../helpers/devnetSubmitter.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/announceBeforeBroadcast.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

describe.skipIf(!hasRedisServer)('an order\'s tx announced in Redis before its broadcast', () => {
  let devnet: Devnet
  let redis: TestRedis
  let runs = 0
  beforeAll(async () => {
    await keccakReady
    ;[devnet, redis] = await Promise.all([startDevnet(), startRedis()])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([devnet?.stop(), redis?.stop()])
  })

  /**
   * A replica (its own key, journal and prefix) with its submitter; `duringSigning` runs
   * while its first batch is signed; `outcomeAtBroadcast` holds what Redis had of each
   * order when its tx reached the node.
   */
  async function replica(
    duringSigning: (admin: RedisClient, keys: { claim: (orderHash: Hex) => string; outcome: (orderHash: Hex) => string }) => Promise<void> = async () => {},
    wrapJournal?: (journal: Journal) => Journal,
  ) {
    const run = ++runs
    const prefix = `order-relay:test-announce-${run}`
    const keys = { claim: (orderHash: Hex) => `${prefix}:claim:${orderHash}`, outcome: (orderHash: Hex) => `${prefix}:outcome:${orderHash}` }
    const admin = new RedisClient(redis.url)
    const batches: TransactionSerializableEIP1559[][] = []
    const outcomeAtBroadcast: (string | null)[] = []
    let watched: Hex | undefined
    const node = http(devnet.rpcUrl, { retryCount: 0 })({})
    // Reads what Redis holds of the watched order as its tx reaches the node.
    const client = createPublicClient({
      transport: custom(
        {
          async request({ method, params }) {
            if (method === 'eth_sendRawTransaction' && watched) outcomeAtBroadcast.push(await admin.get(keys.outcome(watched)))
            return node.request({ method, params })
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient
    let replicas: Replicas | undefined
    const { account, journal, submitter, stop } = await devnetSubmitter(devnet, `announce ${run}`, {
      signWith: async (txs, sign) => {
        batches.push(txs)
        if (batches.length === 1) await duringSigning(admin, keys)
        return sign(txs)
      },
      options: { client, announcer: { announce: (txs) => replicas!.announce(txs), notSent: (txs) => replicas!.notSent(txs) } },
      ...(wrapJournal ? { wrapJournal } : {}),
    })
    replicas = createReplicas(redis.url, { logger: createMemoryLogger(), prefix, journal, restoreWindowMs: 300, health: { up() {}, error() {} } })
    await replicas.start(5_000)
    return {
      account,
      journal,
      replicas,
      submitter,
      admin,
      keys,
      batches,
      outcomeAtBroadcast,
      watch: (orderHash: Hex) => void (watched = orderHash),
      async stop() {
        await submitter.stop()
        await replicas!.stop()
        admin.close()
        await stop()
      },
    }
  }

  test('the tx is in Redis, pending, when it reaches the node', async () => {
    const r = await replica()
    try {
      const orderHash = `0x${'a1'.repeat(32)}` as Hex
      r.watch(orderHash)
      expect(await r.replicas.claims.claim(orderHash)).toBe(true)
      const sent = await r.submitter.send({ to: devnetAccounts.spare.address, data: '0x01', gas: 50_000n, orderHash })
      expect(r.outcomeAtBroadcast.map((raw) => (raw ? JSON.parse(raw) : raw))).toEqual([{ status: 'pending', txHash: sent.hash }])
      expect((await r.submitter.outcome(sent.nonce, 15_000))?.status).toBe('settled')
      await r.replicas.claims.release(orderHash)
    } finally {
      await r.stop()
    }
  }, 60_000)

  test('a claim another replica took meanwhile (unseen here): the order is answered UPSTREAM_RPC; nothing is published or sent; the rest of its batch is', async () => {
    const lostHash = `0x${'b2'.repeat(32)}` as Hex
    const r = await replica(async (admin, keys) => {
      // The lease ran out and another replica took the claim: this one has not heard yet.
      await admin.send('SET', [keys.claim(lostHash), 'another-replicas-token', 'PX', '10000'])
    })
    try {
      const keptHash = `0x${'b3'.repeat(32)}` as Hex
      expect(await r.replicas.claims.claim(lostHash)).toBe(true)
      expect(await r.replicas.claims.claim(keptHash)).toBe(true)
      const to = devnetAccounts.spare.address
      const [lost, kept] = await Promise.allSettled([r.submitter.send({ to, data: '0x01', gas: 50_000n, orderHash: lostHash }), r.submitter.send({ to, data: '0x02', gas: 50_000n, orderHash: keptHash })])
      expect(lost.status).toBe('rejected')
      const error = (lost as PromiseRejectedResult).reason as RelayError
      expect(error).toBeInstanceOf(RelayError)
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'UPSTREAM_RPC',
        message:
          "this order's claim in the shared state (Redis, RELAYER_REDIS_URL) was lost before its transaction was broadcast; another replica may be sending it, so nothing was sent from here; send the same request again shortly (it is answered from the replica that holds the order)",
      })
      expect(await r.admin.get(r.keys.outcome(lostHash))).toBeNull()
      expect(kept.status).toBe('fulfilled')
      const sent = (kept as PromiseFulfilledResult<{ nonce: number; hash: Hex }>).value
      // Signed again alone, at the nonce the batch began with, and announced again under its new hash.
      expect(r.batches.map((batch) => batch.map((tx) => tx.data))).toEqual([['0x01', '0x02'], ['0x02']])
      expect(sent.nonce).toBe(0)
      expect(JSON.parse((await r.admin.get(r.keys.outcome(keptHash)))!)).toEqual({ status: 'pending', txHash: sent.hash })
      expect(await devnet.publicClient.getTransactionCount({ address: r.account.address, blockTag: 'pending' })).toBe(1)
      expect(r.journal.byOrder(lostHash)).toBeUndefined()
    } finally {
      await r.stop()
    }
  }, 60_000)

  test('Redis does not answer the announcement: nothing is sent; what it took of the tx is taken back once it answers', async () => {
    const orderHash = `0x${'c4'.repeat(32)}` as Hex
    const r = await replica(async (admin) => {
      // Every command waits 1.5 s: the announcement times out (1 s), and runs once the pause ends.
      await admin.send('CLIENT', ['PAUSE', '1500', 'ALL'])
    })
    try {
      expect(await r.replicas.claims.claim(orderHash)).toBe(true)
      const failed = await r.submitter.send({ to: devnetAccounts.spare.address, data: '0x01', gas: 50_000n, orderHash }).then(
        () => undefined,
        (error: RelayError) => error,
      )
      expect({ code: failed?.code, message: failed?.message }).toEqual({
        code: 'UPSTREAM_RPC',
        message: "the shared state (Redis, RELAYER_REDIS_URL) failed as this order's transaction was published there before its broadcast; nothing was sent; send the same request again shortly or try another relayer",
      })
      expect(await devnet.publicClient.getTransactionCount({ address: r.account.address, blockTag: 'pending' })).toBe(0)
      expect(r.journal.byOrder(orderHash)).toBeUndefined()
      // The announcement ran once the pause ended; the heartbeat takes it back.
      await waitFor('the announced tx never broadcast to be taken back from Redis', async () => (await r.admin.get(r.keys.outcome(orderHash))) === null, 10_000, 50)
      await waitFor('the shared state to be whole again', () => r.replicas.state.whole, 10_000)
      await r.replicas.claims.release(orderHash)
    } finally {
      await r.stop()
    }
  }, 60_000)

  test('the journal fails to write an announced batch: nothing is sent, and what Redis holds of its tx is taken back', async () => {
    const orderHash = `0x${'d5'.repeat(32)}` as Hex
    // The journal's first write fails, as a full or failing disk makes it.
    const failingOnce = (journal: Journal): Journal => {
      let failed = false
      return new Proxy(journal, {
        get(target, key, receiver) {
          if (key === 'record' && !failed) {
            failed = true
            return () => Promise.reject(new Error('disk I/O error'))
          }
          return Reflect.get(target, key, receiver)
        },
      })
    }
    const r = await replica(async () => {}, failingOnce)
    try {
      r.watch(orderHash)
      expect(await r.replicas.claims.claim(orderHash)).toBe(true)
      const failed = await r.submitter.send({ to: devnetAccounts.spare.address, data: '0x01', gas: 50_000n, orderHash }).then(
        () => undefined,
        (error: RelayError) => error,
      )
      expect({ code: failed?.code, message: failed?.message }).toEqual({ code: 'UPSTREAM_RPC', message: 'the relayer could not write its journal; nothing was broadcast; retry or try another relayer' })
      expect(r.outcomeAtBroadcast).toEqual([])
      await waitFor('the announced tx never broadcast to be taken back from Redis', async () => (await r.admin.get(r.keys.outcome(orderHash))) === null, 10_000, 50)
      await r.replicas.claims.release(orderHash)
    } finally {
      await r.stop()
    }
  }, 60_000)
})
