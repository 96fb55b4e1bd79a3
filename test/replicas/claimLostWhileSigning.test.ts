// A replica asks whether an order is still its own once the order's tx is signed, before
// anything is written or sent. A slow signer (a remote signer or KMS) can hold a batch
// while Redis loses the order's claim: emptied, or silent past the claim's lease, after
// which another replica may take the claim and send the order. The order is then answered
// UPSTREAM_RPC ("send the same request again") and nothing of it reaches the journal or
// the node; the rest of its batch is signed again at the same nonces and sent.
import { RedisClient } from 'bun'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createPublicClient, type Hex, http, keccak256, type PublicClient, stringToHex, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { RelayError } from '../../src/relayer/errors.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createReplicas } from '../../src/relayer/replicas/index.ts'
import { createSubmitter } from '../../src/relayer/submitter/index.ts'
import { createTxSigner } from '../../src/relayer/submitter/txSigner.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccakReady } from '../../src/wire/index.ts'
import { hasRedisServer, redisServerPath, startRedis, type TestRedis } from '../../scripts/lib/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

if (!hasRedisServer) {
  console.log(`test/replicas/claimLostWhileSigning.test.ts: skipping: ${redisServerPath} is absent (install Debian's package: apt-get install -y redis-server)`)
}

describe.skipIf(!hasRedisServer)('an order whose claim is lost while its tx is signed', () => {
  let devnet: Devnet
  let redis: TestRedis
  beforeAll(async () => {
    await keccakReady
    ;[devnet, redis] = await Promise.all([startDevnet(), startRedis()])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([devnet?.stop(), redis?.stop()])
  })

  test('is answered UPSTREAM_RPC and never sent; the rest of its batch is signed again and sent', async () => {
    const account = privateKeyToAccount(keccak256(stringToHex('order-relay claim lost while signing test')))
    await devnet.testClient.setBalance({ address: account.address, value: 10n ** 20n })
    const logger = createMemoryLogger()
    const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
    const replicas = createReplicas(redis.url, { logger, prefix: 'order-relay:test-claim-lost', journal, restoreWindowMs: 300, health: { up() {}, error() {} } })
    const admin = new RedisClient(redis.url)
    const inner = createTxSigner({ account, logger })
    const batches: TransactionSerializableEIP1559[][] = []
    // Its first batch is signed while Redis is emptied, and until the replica has seen it.
    const slow = {
      ...inner,
      async signAll(txs: TransactionSerializableEIP1559[]) {
        batches.push(txs)
        if (batches.length === 1) {
          await admin.send('FLUSHALL', [])
          await waitFor('the replica to find Redis emptied', () => !replicas.state.whole, 5_000)
        }
        return inner.signAll(txs)
      },
    }
    const client = createPublicClient({ transport: http(devnet.rpcUrl, { retryCount: 0 }) }) as PublicClient
    const submitter = createSubmitter({
      client,
      address: account.address,
      signer: slow,
      chainId: devnet.chainId,
      logger,
      journal,
      receiptPollMs: 20,
      describe: async () => undefined,
      wouldRevert: async () => undefined,
      stillOurs: (orderHash) => replicas.stillOurs(orderHash),
    })
    await replicas.start(5_000)
    await submitter.start()
    try {
      expect(replicas.state.whole).toBe(true)
      const claimed = `0x${'1c'.repeat(32)}` as Hex
      expect(await replicas.claims.claim(claimed)).toBe(true)
      expect(replicas.refusal(claimed)).toBeUndefined()
      const to = devnetAccounts.spare.address
      // Queued in one tick: one batch. The first is an order this replica claimed; the second no order's (a filler's kind).
      const [lost, kept] = await Promise.allSettled([submitter.send({ to, data: '0x01', gas: 50_000n, orderHash: claimed }), submitter.send({ to, data: '0x02', gas: 50_000n })])
      expect(lost.status).toBe('rejected')
      const error = (lost as PromiseRejectedResult).reason as RelayError
      expect(error).toBeInstanceOf(RelayError)
      expect(error.code).toBe('UPSTREAM_RPC')
      expect(error.message).toContain('while its transaction was being signed; another replica may be sending it, so nothing was sent from here; send the same request again shortly')
      expect(kept.status).toBe('fulfilled')
      // Signed again alone, at the nonce the batch began with.
      expect(batches.map((batch) => batch.map((tx) => tx.data))).toEqual([['0x01', '0x02'], ['0x02']])
      expect((kept as PromiseFulfilledResult<{ nonce: number }>).value.nonce).toBe(0)
      expect((await submitter.outcome(0, 15_000))?.status).toBe('settled')
      // Nothing of the lost order reached the node, or the journal.
      expect(await devnet.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(1)
      expect(journal.byOrder(claimed)).toBeUndefined()
      await replicas.claims.release(claimed)
    } finally {
      await submitter.stop()
      await replicas.stop()
      admin.close()
      journal.close()
    }
  }, 60_000)
})
