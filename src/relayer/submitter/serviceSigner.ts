import type { Hex, TransactionSerializableEIP1559 } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import { type GasSigner, SignerError, signedTxFault } from '../../signers/index.ts'
import { RelayError } from '../errors.ts'
import { createLimit } from './concurrencyLimit.ts'
import type { CheckFault } from './signerThread.ts'
import { createSignerHealth, defaultProbeSchedule, type ProbeSchedule, type SignerHealth, signerKindName } from './signerHealth.ts'
import { createSignerThreadClient } from './signerThreadClient.ts'
import type { TxSigner } from './txSignerType.ts'

/** Documented defaults of RELAYER_SIGNER_CONCURRENCY and RELAYER_SIGNER_TIMEOUT_MS. */
export const signerDefaults = { concurrency: 64, timeoutMs: 10_000 } as const

export type ServiceSignerOptions = {
  gasSigner: GasSigner
  logger: Logger
  /** Most signatures asked of the service at once (RELAYER_SIGNER_CONCURRENCY). */
  concurrency?: number | undefined
  /** How long one signature may take before it counts as failed (RELAYER_SIGNER_TIMEOUT_MS). */
  timeoutMs?: number | undefined
  /** A throw-away tx's chain id for the probe signatures while the service is down. */
  chainId?: number | undefined
  /** How often a service that is down is probed. */
  probe?: ProbeSchedule | undefined
  /** The signer thread's module (tests); default signerThread.ts. */
  threadUrl?: string | undefined
}

/**
 * A signer whose key stays at its service (a remote signer, KMS): every batch's txs are
 * asked for together through one limit of `concurrency` signatures in flight, each
 * within `timeoutMs`. A signature that fails or times out fails its whole batch (the rest
 * of it is still waited for, so the limit holds at the service) and marks the signer down
 * (signerHealth.ts) until a signature succeeds again.
 *
 * Every tx the service returns is checked (checkSignedTx: the sender recovered, every
 * field as asked, low s, canonical bytes) before the batch is returned, so before
 * anything of it is journaled. The checks of a batch run in the signer thread
 * (signerThread.ts): recovering a sender costs most of a millisecond of CPU, which the
 * event loop spends answering orders instead. A signer that does its own check (the
 * remote signer's `signTransactionUnchecked` skips it there) is checked once; one that
 * builds the tx itself (KMS) is checked again here all the same: one rule for every
 * signer outside the process. Should the thread fail, the checks run in this thread.
 */
export function createServiceSigner(options: ServiceSignerOptions): TxSigner {
  const { gasSigner, logger } = options
  const concurrency = options.concurrency ?? signerDefaults.concurrency
  const timeoutMs = options.timeoutMs ?? signerDefaults.timeoutMs
  const name = `${signerKindName(gasSigner.kind)} ${gasSigner.description}`
  const limit = createLimit(concurrency)
  const thread = createSignerThreadClient({ logger, work: 'checking signed txs', threadUrl: options.threadUrl })
  const sign = gasSigner.signTransactionUnchecked ?? gasSigner.signTransaction

  /** One signature within `timeoutMs`, unchecked. A late answer is dropped. */
  async function signWithin(tx: TransactionSerializableEIP1559): Promise<Hex> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SignerError('SIGNER_UNAVAILABLE', `the ${name} did not sign within ${timeoutMs} ms (RELAYER_SIGNER_TIMEOUT_MS)`, { fix: 'check the signer service, or raise RELAYER_SIGNER_TIMEOUT_MS' })),
        timeoutMs,
      )
    })
    try {
      return await Promise.race([sign.call(gasSigner, tx), late])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Signs the txs (each within the limit and `timeoutMs`) and checks them: the raw txs in order, or the first failure. */
  async function signChecked(txs: TransactionSerializableEIP1559[]): Promise<Hex[]> {
    const settled = await Promise.allSettled(txs.map((tx) => limit(() => signWithin(tx))))
    const failure = settled.find((result) => result.status === 'rejected')
    if (failure) throw failure.reason
    const raws = settled.map((result) => (result as PromiseFulfilledResult<Hex>).value)
    const fault = (await faultsOf(txs, raws)).find((each) => each !== null)
    if (fault) throw new SignerError('SIGNER_FAULT', `${fault.message} (${name})`, { fix: fault.fix })
    return raws
  }

  /** checkSignedTx on each tx: in the signer thread, or here when it cannot run. */
  async function faultsOf(txs: TransactionSerializableEIP1559[], raws: Hex[]): Promise<Array<CheckFault | null>> {
    const signed = txs.map((tx, i) => ({ asked: { ...tx, type: 'eip1559' as const }, raw: raws[i]! }))
    if (!thread.gone) {
      try {
        return await thread.check(gasSigner.address, signed)
      } catch (error) {
        // A thread that stopped leaves the checks to this one; any other failure is the batch's.
        if (!thread.gone) throw error
      }
    }
    return Promise.all(signed.map(({ asked, raw }) => signedTxFault(asked, raw, gasSigner.address)))
  }

  const health: SignerHealth = createSignerHealth({
    logger,
    signer: gasSigner,
    schedule: options.probe ?? defaultProbeSchedule,
    probe: () => signChecked([probeTx(gasSigner, options.chainId ?? 1)]),
  })

  return {
    async signAll(txs) {
      if (txs.length === 0) return []
      try {
        const raws = await signChecked(txs)
        health.succeeded()
        return raws
      } catch (error) {
        health.failed(error)
        throw asSignerRefusal(error, name)
      }
    },
    start() {
      thread.start()
    },
    where: 'service',
    health,
    stop() {
      health.stop()
      thread.stop()
    },
  }
}

/**
 * A tx that can never be mined, signed only to see whether the signer answers: to the key
 * itself, nonce 2^53 - 1 (a nonce the key will not reach), no fee. Never journaled or broadcast.
 */
function probeTx(signer: GasSigner, chainId: number): TransactionSerializableEIP1559 {
  return { type: 'eip1559', chainId, nonce: Number.MAX_SAFE_INTEGER, to: signer.address, value: 0n, data: '0x', gas: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
}

/**
 * A failed signature as the orders of its batch are answered: 503 INSUFFICIENT_RELAYER_GAS
 * naming the signer (never a secret), the signer's own error as the cause.
 */
function asSignerRefusal(error: unknown, name: string): SignerRefusal {
  return new SignerRefusal(`not broadcast: the gas key's signer (${name}) failed (${errorLine(error)}); nothing was signed or spent; try another relayer`, error)
}

/** A batch its signer did not sign (see signerHealth.ts): the signer's failure is its cause, already logged there. */
export class SignerRefusal extends RelayError {
  constructor(message: string, cause: unknown) {
    super('INSUFFICIENT_RELAYER_GAS', message, { cause })
    this.name = 'SignerRefusal'
  }
}
