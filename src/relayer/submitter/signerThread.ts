// The gas key's signer thread (a Bun Worker): signs batches of EIP-1559 txs off the
// relayer's event loop. Started by txSigner.ts, which hands it the key once; the key
// is never sent back, logged or put in an error.
import type { Hex, LocalAccount, TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** What the relayer sends the thread: the key first, then batches to sign. */
export type SignerRequest = { kind: 'key'; key: Hex } | { kind: 'sign'; id: number; txs: TransactionSerializableEIP1559[] }
/** What the thread answers for a batch: the raw txs in order, or why it could not sign. */
export type SignerAnswer = { id: number; raws: Hex[] } | { id: number; error: string }

declare const self: Worker
let account: LocalAccount | undefined

self.onmessage = async ({ data }: MessageEvent<SignerRequest>) => {
  if (data.kind === 'key') {
    account = privateKeyToAccount(data.key)
    return
  }
  try {
    if (!account) throw new Error('the signer thread has no key')
    const raws: Hex[] = []
    for (const tx of data.txs) raws.push(await account.signTransaction(tx))
    postMessage({ id: data.id, raws } satisfies SignerAnswer)
  } catch (error) {
    // A signing failure names its kind only (a message could quote the transaction, never the key).
    postMessage({ id: data.id, error: (error as Error)?.name ?? 'Error' } satisfies SignerAnswer)
  }
}
