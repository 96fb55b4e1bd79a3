// Relayer replicas sharing one Redis (docs/scaling.md): two relayers with
// different gas keys and one real redis-server. The same order sent to both at once
// settles once and both answers name that tx; GET /broker/{orderHash} answers from
// either; the rate limit holds across both; Redis killed mid-run leaves both serving
// on local state (warning logged, metric down); Redis unreachable at start fails.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createRedisClaims, createSharedRedis } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { brokeredByOrder, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/redisReplicas.test.ts: skipping the replica tests: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

const keys = [devnetAccounts.relayer, devnetAccounts.secondRelayer, devnetAccounts.laneOperator, devnetAccounts.spare]

describe.skipIf(!hasRedisServer)('two relayer replicas sharing one Redis', () => {
  let devnet: Devnet
  let redis: TestRedis
  let replicas: TestRelayer[] = []
  let fromBlock: bigint
  const started: TestRelayer[] = []

  const startReplica = async (index: number, env: Record<string, string> = {}) => {
    const replica = await startTestRelayer(devnet, { env: { RELAYER_PK: keys[index]!.privateKey, RELAYER_REDIS_URL: redis.url, RELAYER_REDIS_RESTORE_MS: '1000', ...env } })
    started.push(replica)
    return replica
  }
  const order = (): Promise<RelayRequest> => signed(devnet, allocationOrder(devnet))
  const status = async (replica: TestRelayer, orderHash: string) => (await fetch(`${replica.url}/broker/${orderHash}`)).json()
  const metric = async (replica: TestRelayer, name: string) => {
    const text = await replica.relayer.operations.registry.metrics()
    return text.split('\n').find((line) => line.startsWith(`${name} `))
  }

  beforeAll(async () => {
    redis = await startRedis()
    devnet = await startDevnet()
    fromBlock = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    replicas = [await startReplica(0), await startReplica(1)]
  }, 60_000)
  afterAll(async () => {
    for (const replica of started) await replica.stop()
    await devnet?.stop()
    await redis?.stop()
  }, 30_000)

  test('the same order sent to both at once settles once; both answer 200 naming that tx', async () => {
    const [a, b] = replicas as [TestRelayer, TestRelayer]
    const requests = await Promise.all(Array.from({ length: 6 }, order))
    const answers = await Promise.all(requests.map((request, i) => Promise.all(i % 2 === 0 ? [a.post(request), b.post(request)] : [b.post(request), a.post(request)])))
    const brokered = await brokeredByOrder(devnet)
    for (const [i, [first, second]] of answers.entries()) {
      const orderHash = requests[i]!.orderHash!.toLowerCase() as Hex
      const settledIn = brokered.get(orderHash)
      expect(settledIn).toHaveLength(1)
      expect([first.status, second.status]).toEqual([200, 200])
      expect([first.body.txHash, second.body.txHash]).toEqual([settledIn![0], settledIn![0]])
      expect(second.body.brokered).toEqual(first.body.brokered)
    }
  }, 60_000)

  test('GET /broker/{orderHash} from the replica that did not send it says settled with the txHash', async () => {
    const [a, b] = replicas as [TestRelayer, TestRelayer]
    const request = await order()
    const sent = await a.post(request)
    expect(sent.status).toBe(200)
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: sent.body.txHash as Hex })
    expect(receipt.from.toLowerCase()).toBe(keys[0]!.address.toLowerCase())
    expect(await status(b, request.orderHash!)).toEqual({
      orderHash: request.orderHash!.toLowerCase(),
      status: 'settled',
      txHash: sent.body.txHash,
      blockNumber: receipt.blockNumber.toString(),
      confirmations: 1,
      final: true,
    })
    // A later replay to the other replica is the replay answer naming that tx, never a broadcast.
    const replay = await b.post(request)
    expect(replay.status).toBe(422)
    expect(replay.body).toEqual({
      ok: false,
      code: 'WOULD_REVERT',
      message: `would revert: authorization used (already settled in tx ${sent.body.txHash}); build a new order with a fresh nonce`,
    })
  }, 60_000)

  test('the rate limit holds across both replicas: burst N in total, not N per replica', async () => {
    const hardened = { RELAYER_HARDENED: '1', RELAYER_RATE_BURST: '4', RELAYER_RATE_PER_SEC: '0.01', RELAYER_GAS_FLOOR_WEI: '1' }
    const pair = [await startReplica(0, { ...hardened, RELAYER_DB: ':memory:' }), await startReplica(1, { ...hardened, RELAYER_DB: ':memory:' })]
    const statuses: number[] = []
    for (let i = 0; i < 10; i++) statuses.push((await fetch(`${pair[i % 2]!.url}/info`)).status)
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429, 429, 429])
    const refused = await fetch(`${pair[1]!.url}/info`)
    expect(refused.headers.get('retry-after')).toBe('100')
    expect(await refused.json()).toMatchObject({ ok: false, code: 'RATE_LIMITED' })
    for (const replica of pair) await replica.stop()
  }, 60_000)

  test('Redis killed mid-run: both replicas refuse new orders (shared state unavailable), /ready and /status say why, the metrics count it; back empty: the restore window, then orders settle again', async () => {
    const [a, b] = replicas as [TestRelayer, TestRelayer]
    expect(await metric(a, 'order_relay_relayer_redis_up')).toBe('order_relay_relayer_redis_up 1')
    expect(await metric(a, 'order_relay_relayer_shared_state_whole')).toBe('order_relay_relayer_shared_state_whole 1')
    // An order settled before the outage: still answered (from the journal, or the chain) during it.
    const before = await order()
    const settled = await a.post(before)
    expect(settled.status).toBe(200)
    await redis.kill()
    const requests = await Promise.all(Array.from({ length: 4 }, order))
    const answers = await Promise.all(requests.map((request, i) => (i % 2 === 0 ? a : b).post(request)))
    for (const answer of answers) {
      expect(answer.status).toBe(502)
      expect(answer.body.code).toBe('UPSTREAM_RPC')
      expect(String(answer.body.message)).toStartWith('the shared state (Redis, RELAYER_REDIS_URL) is unavailable: ')
      expect(String(answer.body.message)).toEndWith('(an order another replica may hold is never sent twice); retry shortly or try another relayer')
    }
    expect(await a.post(before)).toMatchObject({ status: 422, body: { code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${settled.body.txHash}); build a new order with a fresh nonce` } })
    expect(await b.post(before)).toMatchObject({ status: 422, body: { code: 'WOULD_REVERT', message: `would revert: authorization used (already settled in tx ${settled.body.txHash}); build a new order with a fresh nonce` } })
    for (const replica of [a, b]) {
      const warnings = replica.logger.lines.filter((line) => line.startsWith('warn: Redis at'))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain(`Redis at ${redis.url} (RELAYER_REDIS_URL) failed while`)
      expect(warnings[0]).toContain('taking no new order until the shared state is whole again')
      expect(await metric(replica, 'order_relay_relayer_redis_up')).toBe('order_relay_relayer_redis_up 0')
      expect(await metric(replica, 'order_relay_relayer_shared_state_whole')).toBe('order_relay_relayer_shared_state_whole 0')
      expect(Number((await metric(replica, 'order_relay_relayer_redis_errors_total'))?.split(' ')[1])).toBeGreaterThan(0)
      expect(Number((await metric(replica, 'order_relay_relayer_shared_state_refusals_total'))?.split(' ')[1])).toBeGreaterThanOrEqual(2)
      await waitFor('/ready to fail with the shared state', async () => (await fetch(`${replica.url}/ready`)).status === 503, 5_000)
      const ready = (await (await fetch(`${replica.url}/ready`)).json()) as { reason: string; checks: { name: string; ok: boolean }[] }
      expect(ready.reason).toStartWith('the shared state (Redis, RELAYER_REDIS_URL) is unavailable: ')
      expect(ready.checks.find((check) => check.name === 'shared-state')?.ok).toBe(false)
      const status = (await (await fetch(`${replica.url}/status`)).json()) as { sharedState: { state: string; reason: string; since: string } }
      expect(status.sharedState.state).toBe('unavailable')
      expect(status.sharedState.reason).toBe(ready.reason)
    }
    // Back, empty: each replica finds the state lost, re-publishes, and waits the window.
    await redis.restart()
    for (const replica of [a, b]) {
      await waitFor('the replica to find the shared state lost', () => replica.logger.lines.some((line) => line.startsWith('warn: the shared state in Redis was lost')), 10_000)
      await waitFor('the shared state to be whole again', async () => (await fetch(`${replica.url}/ready`)).status === 200, 15_000)
      expect(await metric(replica, 'order_relay_relayer_shared_state_lost_total')).toBe('order_relay_relayer_shared_state_lost_total 1')
      expect(await metric(replica, 'order_relay_relayer_redis_up')).toBe('order_relay_relayer_redis_up 1')
      expect(((await (await fetch(`${replica.url}/status`)).json()) as { sharedState: unknown }).sharedState).toEqual({ state: 'whole' })
    }
    // The order settled before the outage was re-published: the other replica answers it from Redis.
    expect((await b.post(before)).body.message).toBe(`would revert: authorization used (already settled in tx ${settled.body.txHash}); build a new order with a fresh nonce`)
    const after = await Promise.all(requests.map((request, i) => (i % 2 === 0 ? b : a).post(request)))
    expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
  }, 90_000)

  test('a relayer without RELAYER_REDIS_URL has no Redis metrics (absent, not 0)', async () => {
    const alone = await startTestRelayer(devnet, { env: { RELAYER_DB: ':memory:' } })
    try {
      const text = await alone.relayer.operations.registry.metrics()
      expect(text).not.toContain('order_relay_relayer_redis')
    } finally {
      await alone.stop()
    }
    expect(await metric(replicas[0]!, 'order_relay_relayer_redis_errors_total')).toBeDefined()
  }, 30_000)

  test('a claim that expired and was taken by another replica is not released by its first holder', async () => {
    const quiet = { up() {}, error() {} }
    const prefix = 'order-relay:test-claims'
    const sharedBy = () => createSharedRedis(redis.url, { logger: silentLogger, health: quiet, prefix })
    const [first, second] = [sharedBy(), sharedBy()]
    await first.connect()
    await second.connect()
    // The claims are fenced by the epoch the shared state knows: here, one set by hand.
    await first.attempt('setting an epoch', 'orders', (client) => client.send('SET', [`${prefix}:epoch`, 'test-epoch']))
    const fence = { epoch: 'test-epoch', suspect() {} }
    try {
      const [a, b] = [createRedisClaims(first, { leaseMs: 100, fence }), createRedisClaims(second, { leaseMs: 60_000, fence })]
      const orderHash = `0x${'ab'.repeat(32)}` as Hex
      expect(await a.claim(orderHash)).toBe(true)
      expect(await b.claim(orderHash)).toBe(false)
      const deadline = Date.now() + 5_000
      while (!(await b.claim(orderHash))) {
        if (Date.now() > deadline) throw new Error('the 100 ms claim did not expire within 5 s')
        await Bun.sleep(20)
      }
      await a.release(orderHash)
      // Still held by b: a third claimant is refused until b releases.
      const third = createRedisClaims(first, { leaseMs: 60_000, fence })
      expect(await third.claim(orderHash)).toBe(false)
      await b.release(orderHash)
      expect(await third.claim(orderHash)).toBe(true)
      await third.release(orderHash)
    } finally {
      first.close()
      second.close()
    }
  }, 30_000)

  test('a claim under an epoch that is not Redis\'s is taken locally only, and the fence is told', async () => {
    const prefix = 'order-relay:test-fence'
    const shared = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {} }, prefix })
    await shared.connect()
    await shared.attempt('setting an epoch', 'orders', (client) => client.send('SET', [`${prefix}:epoch`, 'current']))
    let suspected = 0
    try {
      const claims = createRedisClaims(shared, { leaseMs: 60_000, fence: { epoch: 'before-the-restart', suspect: () => suspected++ } })
      const orderHash = `0x${'cd'.repeat(32)}` as Hex
      expect(await claims.claim(orderHash)).toBe(true)
      expect({ shared: claims.shared(orderHash), suspected }).toEqual({ shared: false, suspected: 1 })
      const stored = await shared.attempt('reading the claim', 'orders', (client) => client.send('EXISTS', [`${prefix}:claim:${orderHash}`]))
      expect(stored).toEqual({ ok: true, value: 0 })
      await claims.release(orderHash)
    } finally {
      shared.close()
    }
  }, 30_000)

  test('a tx still pending when its replica gave up: the other replica names it, then answers 200 once it is mined', async () => {
    const short = { RELAYER_RECEIPT_TIMEOUT_MS: '1500', RELAYER_DB: ':memory:' }
    const [a, b] = [await startReplica(2, short), await startReplica(3, short)]
    const request = await order()
    await devnet.testClient.setAutomine(false)
    try {
      const first = await a.post(request)
      expect(first.status).toBe(502)
      expect(first.body.code).toBe('UPSTREAM_RPC')
      const txHash = String(first.body.message).match(/tx (0x[0-9a-f]{64})/)?.[1]
      expect(txHash).toBeDefined()
      const elsewhere = await b.post(request)
      expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({
        status: 502,
        body: { ok: false, code: 'UPSTREAM_RPC', message: `broadcast by another relayer replica as tx ${txHash}, still without a receipt; it may still settle, in that tx or one replacing it: follow GET /broker/${request.orderHash!.toLowerCase()} until it says settled or reverted (sending the same request again is safe: an order is never sent twice)` },
      })
      expect(await status(b, request.orderHash!)).toEqual({ orderHash: request.orderHash!.toLowerCase(), status: 'pending', txHash })
      await devnet.testClient.mine({ blocks: 1 })
      const mined = await b.post(request)
      expect({ status: mined.status, txHash: mined.body.txHash }).toEqual({ status: 200, txHash })
      const replay = await b.post(request)
      expect({ status: replay.status, code: replay.body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
      expect(String(replay.body.message)).toContain(`already settled in tx ${txHash}`)
    } finally {
      await devnet.testClient.setAutomine(true)
      await a.stop()
      await b.stop()
    }
  }, 60_000)

  test("money-safety: no order settled twice, no tx from any replica's key reverted", async () => {
    for (const [orderHash, txs] of await brokeredByOrder(devnet)) expect({ orderHash, settledIn: txs.length }).toEqual({ orderHash, settledIn: 1 })
    for (const key of keys) {
      const reverted = (await txsFrom(devnet, key.address as Address, fromBlock)).filter((tx) => tx.status !== 'success')
      expect(reverted).toEqual([])
    }
  }, 60_000)

  test('Redis unreachable at start: the relayer refuses to start, naming RELAYER_REDIS_URL without its password', async () => {
    const closed = `redis://user:s3cret@127.0.0.1:${redis.port + 1 === 65536 ? 1 : redis.port + 1}`
    let error: Error | undefined
    try {
      await startReplica(0, { RELAYER_REDIS_URL: closed, RELAYER_DB: ':memory:' })
    } catch (caught) {
      error = caught as Error
    }
    expect(error?.message).toMatch(/^RELAYER_REDIS_URL redis:\/\/127\.0\.0\.1:\d+ does not answer \(.+\): start Redis or Valkey there, check the URL and its password, or unset RELAYER_REDIS_URL to run a single relayer on local state$/)
    expect(error?.message).not.toContain('s3cret')
  }, 30_000)
})
