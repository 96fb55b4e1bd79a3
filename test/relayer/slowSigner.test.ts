// A gas key's signer that is slow (a remote signer or KMS, up to RELAYER_SIGNER_TIMEOUT_MS)
// can hold a batch past an order's authorization window while it signs: broadcast, that
// tx would revert and the key would pay. The window is checked again once the batch is
// signed: the order whose window closed is answered AUTH_EXPIRED with nothing sent, and
// the rest of the batch is signed again at the same nonces (found by the simulator with a
// slow signer, seed 73). The chain time here is the test's own clock, moved by the signer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TransactionSerializableEIP1559 } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { RelayError } from '../../src/relayer/errors.ts'
import { keccakReady } from '../../src/wire/index.ts'
import { devnetSubmitter } from '../helpers/devnetSubmitter.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { chainTime } from './support/chain.ts'

let devnet: Devnet
beforeAll(async () => {
  await keccakReady
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

test('an order whose window closes while its batch is signed is answered AUTH_EXPIRED, never sent; the rest of the batch is signed again and sent', async () => {
  let clock = await chainTime(devnet)
  const batches: TransactionSerializableEIP1559[][] = []
  // Its first batch takes a minute of chain time to sign.
  const { account, journal, submitter, stop } = await devnetSubmitter(devnet, 'slow signer', {
    signWith: async (txs, sign) => {
      batches.push(txs)
      if (batches.length === 1) clock += 60n
      return sign(txs)
    },
    options: { minedAt: async () => clock },
  })
  try {
    const to = devnetAccounts.spare.address
    const start = clock
    // Queued in one tick: one batch. The first holds for 30 s more, the second for an hour.
    const [closing, open] = await Promise.allSettled([
      submitter.send({ to, data: '0x01', gas: 50_000n, validBefore: start + 30n }),
      submitter.send({ to, data: '0x02', gas: 50_000n, validBefore: start + 3_600n }),
    ])
    expect(closing.status).toBe('rejected')
    const error = (closing as PromiseRejectedResult).reason as RelayError
    expect(error).toBeInstanceOf(RelayError)
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'AUTH_EXPIRED',
      message: `authorization window passed while its transaction was being signed (validBefore ${start + 30n}, chain time about ${start + 60n}); nothing was sent; re-sign with a fresh window`,
    })
    expect(open.status).toBe('fulfilled')
    const sent = (open as PromiseFulfilledResult<{ nonce: number }>).value
    // Signed again alone, at the nonce the batch began with.
    expect(batches.map((batch) => batch.map((tx) => tx.data))).toEqual([['0x01', '0x02'], ['0x02']])
    expect(sent.nonce).toBe(0)
    expect((await submitter.outcome(0, 15_000))?.status).toBe('settled')
    // Nothing of the closed order reached the node, or the journal.
    expect(await devnet.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(1)
    expect(journal.nextNonce()).toBe(1)
  } finally {
    await stop()
  }
}, 60_000)

test('a tx signed slowly counts its time in the pool from the end of its signing, not the start', async () => {
  // The nonce keeper replaces a tx stuck at the key's next nonce after a wait counted from its `signedAt`: counted
  // from the start of a slow signature, a tx broadcast a moment ago was replaced at once, at a higher fee.
  let signedBy = 0
  const { journal, submitter, stop } = await devnetSubmitter(devnet, 'slow signer sent-at', {
    signWith: async (txs, sign) => {
      // A signer that takes 700 ms.
      const started = Date.now()
      await waitFor('the slow signer\'s 700 ms to pass', () => Date.now() - started >= 700, 5_000)
      signedBy = Date.now()
      return sign(txs)
    },
  })
  try {
    const sent = await submitter.send({ to: devnetAccounts.spare.address, data: '0x03', gas: 50_000n })
    expect(journal.slot(sent.nonce)?.sentAt).toBeGreaterThanOrEqual(signedBy)
  } finally {
    await stop()
  }
}, 60_000)
