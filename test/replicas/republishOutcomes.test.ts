// What a replica re-publishes of its own orders once Redis lost them (republishOutcomes.ts):
// a pending tx's outcome lives as long as any outcome does, whatever the slot's send time
// says. A slot whose broadcast went unanswered (or that a reorg reopened) has its send time
// set to 0, so that the nonce keeper sends it again at once; measured from there, the
// outcome's lifetime was down to its 1 s floor, and once it expired another replica found
// no outcome for an order still being sent, and sent it too (simulator, seed 683).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keccak256, serializeTransaction, toHex } from 'viem'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createSharedOutcomes, createSharedRedis, outcomeTtlMs, republishOutcomes } from '../../src/relayer/replicas/index.ts'
import { silentLogger } from '../../src/shared/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/republishOutcomes.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

describe.skipIf(!hasRedisServer)('outcomes re-published after Redis lost them', () => {
  let redis: TestRedis
  beforeAll(async () => {
    redis = await startRedis()
  }, 30_000)
  afterAll(async () => {
    await redis?.stop()
  })

  test('a pending order whose send went unanswered is published for the whole outcome lifetime, a settled one for what remains of it from its mining', async () => {
    const prefix = 'order-relay:test-republish'
    const shared = createSharedRedis(redis.url, { logger: silentLogger, health: { up() {}, error() {} }, prefix })
    await shared.connect()
    const journal = openJournal(':memory:', { chainId: 31337, address: '0x00000000000000000000000000000000000000a1' })
    try {
      const now = Date.now()
      const slot = (nonce: number) => {
        const raw = serializeTransaction({ type: 'eip1559', chainId: 31337, nonce, to: '0x00000000000000000000000000000000000000b2', gas: 100_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }, { r: '0x01', s: '0x01', yParity: 0 })
        return { nonce, orderHash: keccak256(toHex(`order ${nonce}`)), consumer: null, adapter: null, payToken: null, tx: { hash: keccak256(raw), nonce, raw, kind: 'order' as const, signedAt: now - 60_000 } }
      }
      await journal.record([slot(0), slot(1), slot(2)])
      // Nonce 0: its broadcast went unanswered (slotLife.ts marks it due at once). Nonce 1: settled.
      journal.resent(0, 0)
      journal.resolve(1, { status: 'settled', blockNumber: 7n, blockHash: `0x${'07'.repeat(32)}` })
      // Nonce 2: settled, taken out by a reorg (its send time set to 0), then mined again (simulator, seed 2219: a replica
      // found no outcome for it once Redis restarted, and answered a later request from the chain's clock alone).
      journal.resolve(2, { status: 'settled', blockNumber: 7n, blockHash: `0x${'07'.repeat(32)}` })
      journal.reopen([2])
      journal.resolve(2, { status: 'settled', blockNumber: 8n, blockHash: `0x${'08'.repeat(32)}` })
      // Re-published a minute after they were mined.
      expect(await republishOutcomes(journal, createSharedOutcomes(shared), now + 60_000)).toBe(true)
      const ttl = async (nonce: number) => {
        const got = await shared.attempt('reading a lifetime', 'outcomes', (client) => client.send('PTTL', [`${prefix}:outcome:${slot(nonce).orderHash.toLowerCase()}`]))
        return got.ok ? Number(got.value) : Number.NaN
      }
      expect(await ttl(0)).toBeGreaterThan(outcomeTtlMs - 10_000)
      for (const nonce of [1, 2]) {
        const settled = await ttl(nonce)
        expect(settled).toBeGreaterThan(outcomeTtlMs - 70_000)
        expect(settled).toBeLessThanOrEqual(outcomeTtlMs - 50_000)
      }
    } finally {
      journal.close()
      shared.close()
    }
  }, 30_000)
})
