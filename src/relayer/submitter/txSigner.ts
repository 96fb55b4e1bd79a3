import type { Hex, LocalAccount, TransactionSerializableEIP1559 } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { GasSigner } from '../../signers/index.ts'
import { createServiceSigner } from './serviceSigner.ts'
import type { ProbeSchedule } from './signerHealth.ts'
import { createSignerThreadClient } from './signerThreadClient.ts'
import type { TxSigner } from './txSignerType.ts'

export { SignerRefusal, signerDefaults } from './serviceSigner.ts'
export type { TxSigner } from './txSignerType.ts'

export type TxSignerOptions = {
  logger: Logger
  /** The thread's module (tests); default signerThread.ts. */
  threadUrl?: string
} & (
  | {
      /**
       * The gas key. One that hands its key over (`takePrivateKey`: RELAYER_PK, a keystore)
       * signs in the signer thread; one that keeps it (a remote signer, KMS) signs each tx
       * at its service, `concurrency` at once, each within `timeoutMs` (serviceSigner.ts).
       */
      gasSigner: GasSigner
      /** false: a local key signs in this thread (tests of that path). */
      signerThread?: boolean
      /** Most signatures asked of a service at once (RELAYER_SIGNER_CONCURRENCY). */
      concurrency?: number
      /** How long one signature may take at a service before it counts as failed (RELAYER_SIGNER_TIMEOUT_MS). */
      timeoutMs?: number
      /** A throw-away tx's chain id for the probe signatures while a service is down. */
      chainId?: number
      /** How often a service that is down is probed. */
      probe?: ProbeSchedule
    }
  | {
      /** A local account: signs in this thread, or with `privateKey` in the signer thread. */
      account: LocalAccount
      privateKey?: Hex
    }
)

/**
 * The gas key's signer. With a local key (RELAYER_PK, a decrypted keystore) a batch of
 * txs is signed in a thread of its own (signerThread.ts, a Bun Worker), so the relayer's
 * event loop goes on answering, simulating and reading receipts meanwhile: viem's
 * `signTransaction` (JavaScript secp256k1 and Keccak) takes a few hundred µs a tx, a
 * large share of the event loop under load. Without the raw key, or once the thread fails
 * (it could not start, or died), txs are signed in this thread, with the same bytes.
 *
 * A key that never leaves its service (a remote signer, KMS) is serviceSigner.ts: the
 * batch's signatures asked for together, each checked in the signer thread.
 *
 * @example
 * const signer = createTxSigner({ gasSigner, logger, concurrency: 64, timeoutMs: 10_000, chainId })
 * const [raw] = await signer.signAll([{ type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas }])
 */
export function createTxSigner(options: TxSignerOptions): TxSigner {
  if ('gasSigner' in options && options.gasSigner.takePrivateKey === undefined) {
    return createServiceSigner({ ...options, gasSigner: options.gasSigner })
  }
  const { logger } = options
  let signOne: (tx: TransactionSerializableEIP1559) => Promise<Hex>
  let key: Hex | undefined
  if ('gasSigner' in options) {
    const { gasSigner } = options
    signOne = (tx) => gasSigner.signTransaction(tx)
    // The thread takes the key; the signer keeps signing in this thread should the thread fail.
    key = options.signerThread === false ? undefined : gasSigner.takePrivateKey?.()
  } else {
    const { account } = options
    signOne = (tx) => account.signTransaction(tx)
    key = options.privateKey
  }
  const thread = createSignerThreadClient({ logger, work: 'signing', key, threadUrl: options.threadUrl })
  // Without a key there is nothing for the thread to sign with: every batch is signed here.
  if (key === undefined) thread.stop()

  const inThisThread = async (txs: TransactionSerializableEIP1559[]) => {
    const raws: Hex[] = []
    for (const tx of txs) raws.push(await signOne(tx))
    return raws
  }

  return {
    async signAll(txs) {
      if (thread.gone || txs.length === 0) return inThisThread(txs)
      try {
        return await thread.sign(txs)
      } catch (error) {
        // A batch the thread held when it stopped is signed here; any other failure is the batch's.
        if (!thread.gone) throw error
        return inThisThread(txs)
      }
    },
    start() {
      thread.start()
    },
    get where() {
      return thread.gone ? 'main' : 'thread'
    },
    stop() {
      // A batch still at the thread is signed here: its caller never waits for a thread that is gone.
      thread.stop()
    },
  }
}
