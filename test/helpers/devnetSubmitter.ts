import { createPublicClient, http, keccak256, type PublicClient, stringToHex, type TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Devnet } from '../../src/devnet/index.ts'
import { type Journal, openJournal } from '../../src/relayer/journal/index.ts'
import { createSubmitter, type Submitter, type SubmitterOptions } from '../../src/relayer/submitter/index.ts'
import { createTxSigner, type TxSigner } from '../../src/relayer/submitter/txSigner.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

type MemoryLogger = ReturnType<typeof createMemoryLogger>

/** What a test does with each batch the gas key signs, before (or instead of) signing it with the key. */
export type SignWith = (txs: TransactionSerializableEIP1559[], sign: (txs: TransactionSerializableEIP1559[]) => Promise<`0x${string}`[]>) => Promise<`0x${string}`[]>

/**
 * A submitter on the devnet with a gas key of its own (named by `name`, funded), an
 * in-memory journal and a memory logger; `signWith` wraps each batch's signature (a slow
 * signer, a signer that moves the test's clock), `wrapJournal` what the submitter sees of
 * the journal (a write that fails), `options` adds or replaces submitter
 * options (the client, `minedAt`, an `announcer`). Started; `stop` stops it and closes
 * the journal.
 *
 * @example
 * const { submitter, stop } = await devnetSubmitter(devnet, 'counting signer', { signWith: async (txs, sign) => (batches.push(txs), sign(txs)) })
 */
export async function devnetSubmitter(
  devnet: Devnet,
  name: string,
  { signWith, wrapJournal, options = {} }: { signWith?: SignWith; wrapJournal?: (journal: Journal) => Journal; options?: Partial<SubmitterOptions> } = {},
): Promise<{ account: ReturnType<typeof privateKeyToAccount>; journal: Journal; logger: MemoryLogger; submitter: Submitter; stop: () => Promise<void> }> {
  const account = privateKeyToAccount(keccak256(stringToHex(`order-relay test submitter: ${name}`)))
  await devnet.testClient.setBalance({ address: account.address, value: 10n ** 20n })
  const logger = createMemoryLogger()
  const journal = openJournal(':memory:', { chainId: devnet.chainId, address: account.address })
  const inner = createTxSigner({ account, logger })
  const signer: TxSigner = signWith ? { ...inner, signAll: (txs) => signWith(txs as TransactionSerializableEIP1559[], (batch) => inner.signAll(batch)) } : inner
  const submitter = createSubmitter({
    client: createPublicClient({ transport: http(devnet.rpcUrl, { retryCount: 0 }) }) as PublicClient,
    address: account.address,
    signer,
    chainId: devnet.chainId,
    logger,
    journal: wrapJournal ? wrapJournal(journal) : journal,
    receiptPollMs: 20,
    describe: async () => undefined,
    wouldRevert: async () => undefined,
    ...options,
  })
  await submitter.start()
  return {
    account,
    journal,
    logger,
    submitter,
    async stop() {
      await submitter.stop()
      journal.close()
    },
  }
}
