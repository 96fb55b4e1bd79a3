// The nonce keeper behind a receipt watcher that fell behind (receipts served late, then
// the RPC down): more mined slots left pending in the journal than one round reads, and
// above them the key's next nonce, whose tx the node never took. Every later order waits
// behind that nonce, so the round that looks up the mined backlog also sends it again: a
// round that read only the lowest slots left it for one round per 32 mined slots (seed
// 10950 of the simulator: over three minutes on a chain of 0.25 s blocks).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createNonceKeeper, createSlotWatch, createTxSigner } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../src/wire/index.ts'

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet({ deploy: false })
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

test('40 mined slots the watcher never resolved, and a lost tx at the key\'s next nonce: one round resolves them and sends it again', async () => {
  await keccakReady
  const account = privateKeyToAccount(generatePrivateKey())
  await devnet.testClient.setBalance({ address: account.address, value: 10n ** 20n })
  const { baseFeePerGas } = await devnet.publicClient.getBlock()
  const fees = { maxFeePerGas: baseFeePerGas! * 3n, maxPriorityFeePerGas: 10n ** 9n }
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  const sign = async (nonce: number) => {
    const raw = await account.signTransaction({ type: 'eip1559', chainId: devnet.chainId, nonce, to: account.address, data: '0x', gas: 21_000n, ...fees })
    return { raw, hash: keccak256(raw) }
  }
  const minedCount = 40
  for (let nonce = 0; nonce <= minedCount; nonce++) {
    const { raw, hash } = await sign(nonce)
    await journal.record([{ nonce, orderHash: keccak256(`0x${nonce.toString(16).padStart(64, '0')}` as Hex), consumer: null, adapter: null, payToken: null, tx: { hash, nonce, raw, kind: 'order', signedAt: 0 } }])
    // The node took and mined every tx but the last, which it never got (a lost broadcast).
    if (nonce < minedCount) await devnet.publicClient.request({ method: 'eth_sendRawTransaction', params: [raw] })
  }
  await devnet.testClient.mine({ blocks: 1 })
  expect(await devnet.publicClient.getTransactionCount({ address: account.address })).toBe(minedCount)
  const last = journal.slot(minedCount)!

  const logger = createMemoryLogger()
  const watch = createSlotWatch({ client: devnet.publicClient, journal, logger, describe: async () => undefined })
  const keeper = createNonceKeeper({
    client: devnet.publicClient,
    account,
    chainId: devnet.chainId,
    fees: { fresh: async () => fees, cap: undefined } as never,
    watch,
    logger,
    reviveAfterMs: 1_000,
    wouldRevert: async () => undefined,
    signer: createTxSigner({ account, logger }),
  })
  await keeper.tick()

  expect(journal.pendingCount()).toBe(1)
  expect(journal.pending().map((slot) => slot.nonce)).toEqual([minedCount])
  expect(await devnet.publicClient.request({ method: 'eth_getTransactionByHash', params: [last.txHash] })).not.toBeNull()
  expect(logger.lines.join('\n')).toContain(`tx ${last.txHash} was no longer known to the node; sent it again as signed`)
  await devnet.testClient.mine({ blocks: 1 })
  expect(await devnet.publicClient.getTransactionCount({ address: account.address })).toBe(minedCount + 1)
}, 60_000)
