// The gas key's signer thread (a Bun Worker): signs batches of EIP-1559 txs with a local
// key, and checks the txs a signer service (a remote signer, KMS) signed, off the
// relayer's event loop. Started by signerThreadClient.ts, which hands it a local key
// once; the key is never sent back, logged or put in an error.
import type { Address, Hex, LocalAccount, TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type SignedTxFault, signedTxFault } from '../../signers/checkSignedTx.ts'

/** A signed tx as a service returned it, and the tx it was asked to sign. */
export type SignedByService = { asked: TransactionSerializableEIP1559; raw: Hex }

/** Why checkSignedTx refused a service's tx: its message and fix (neither holds a secret). */
export type CheckFault = SignedTxFault

/** What the relayer sends the thread: the key first (local keys), then batches to sign or to check. */
export type SignerRequest =
  | { kind: 'key'; key: Hex }
  | { kind: 'sign'; id: number; txs: TransactionSerializableEIP1559[] }
  | { kind: 'check'; id: number; address: Address; signed: SignedByService[] }

/**
 * What the thread answers: a batch's raw txs in order, each checked tx's fault (null
 * where it passed), or why it could not do what was asked.
 */
export type SignerAnswer = { id: number; raws: Hex[] } | { id: number; faults: Array<CheckFault | null> } | { id: number; error: string }

declare const self: Worker
let account: LocalAccount | undefined

self.onmessage = async ({ data }: MessageEvent<SignerRequest>) => {
  if (data.kind === 'key') {
    account = privateKeyToAccount(data.key)
    return
  }
  try {
    if (data.kind === 'check') {
      postMessage({ id: data.id, faults: await Promise.all(data.signed.map(({ asked, raw }) => signedTxFault(asked, raw, data.address))) } satisfies SignerAnswer)
      return
    }
    if (!account) throw new Error('the signer thread has no key')
    const raws: Hex[] = []
    for (const tx of data.txs) raws.push(await account.signTransaction(tx))
    postMessage({ id: data.id, raws } satisfies SignerAnswer)
  } catch (error) {
    // A failure names its kind only (a message could quote the transaction, never the key).
    postMessage({ id: data.id, error: (error as Error)?.name ?? 'Error' } satisfies SignerAnswer)
  }
}
