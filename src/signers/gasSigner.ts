import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem'
import { OrderRelayError } from '../errors/index.ts'

/** Where the gas key lives: which of the four sources the relayer was started with. */
export type GasSignerKind = 'private-key' | 'keystore' | 'remote' | 'aws-kms'

/**
 * The gas key as the relayer uses it: its address and one way to sign an EIP-1559 tx.
 * The local key (RELAYER_PK), an encrypted keystore (RELAYER_KEYSTORE), a remote signer
 * over JSON-RPC (RELAYER_SIGNER_URL) and AWS KMS (RELAYER_KMS_KEY_ID) are its four
 * implementations, chosen at start (openGasSigner.ts). The money path is the same for
 * all four: signed, journaled, then broadcast.
 */
export type GasSigner = {
  readonly kind: GasSignerKind
  readonly address: Address
  /**
   * Which key, for the start-up line, `/info` and `/status`: a keystore's file, a signer's
   * URL without credentials, a KMS key id and region. Never a secret.
   */
  readonly description: string
  /** Signs one tx: its serialized signed bytes. Rejects with a SignerError. */
  signTransaction(tx: TransactionSerializableEIP1559): Promise<Hex>
  /**
   * A signer outside the process (a remote signer) only: its answer as it came, not yet
   * checked, for a caller that runs checkSignedTx on it itself before using it (the
   * relayer checks a batch's txs in its signer thread, off the event loop).
   * `signTransaction` is this followed by that check.
   */
  signTransactionUnchecked?: (tx: TransactionSerializableEIP1559) => Promise<Hex>
  /**
   * Local keys only: hands the raw key over once (to the signer thread) and forgets it;
   * undefined after the first call. Absent where the key never leaves its service.
   */
  takePrivateKey?: () => Hex | undefined
  /** Ends what the signer holds open (connections); a no-op where there is none. */
  close?: () => Promise<void>
}

export type SignerErrorCode =
  /** The key cannot be opened at start (a wrong password, a corrupt file, two sources set): exit 2. */
  | 'SIGNER_CONFIG'
  /** The signer did not answer, timed out or throttled: new orders wait until it answers again. */
  | 'SIGNER_UNAVAILABLE'
  /** The signer answered with something other than what was asked (another sender, other fields): never broadcast. */
  | 'SIGNER_FAULT'

/**
 * A failure of the gas key's signer. Its message names the source (a file, a URL
 * without credentials, a KMS key id) and the fix, never a key, password or token.
 */
export class SignerError extends OrderRelayError<SignerErrorCode> {
  override name = 'SignerError'
  constructor(code: SignerErrorCode, message: string, options: { fix?: string; cause?: unknown; details?: string } = {}) {
    super(code, message, { ...options, exitCode: code === 'SIGNER_CONFIG' ? 2 : 1 })
  }
}
