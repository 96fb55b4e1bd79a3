import type { Hex, TransactionSerializableEIP1559 } from 'viem'
import type { SignerHealth } from './signerHealth.ts'

/** The gas key as the batch sender and the nonce keeper sign with it: a local key (txSigner.ts) or a key at a service (serviceSigner.ts). */
export type TxSigner = {
  /** Signs the txs: their raw bytes, in the order given. Rejects (nothing of the batch signed) when any one fails. */
  signAll(txs: TransactionSerializableEIP1559[]): Promise<Hex[]>
  /** Starts the signer thread now rather than at the first batch. */
  start(): void
  /** Where batches are signed now: in the signer thread, in this one, or at the signer's service (remote, KMS). */
  readonly where: 'thread' | 'main' | 'service'
  /** Whether the signer answers (a service can fail or time out; a local key always answers). */
  readonly health?: SignerHealth
  /** Ends the signer thread (signing then goes on in this thread) and the health probes. */
  stop(): void
}
