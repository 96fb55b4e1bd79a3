import type { Hex, TransactionSerializableEIP1559 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { redactUrl } from '../../src/shared/index.ts'
import { type GasSigner, SignerError } from '../../src/signers/index.ts'

/**
 * What the double does with the next signatures: sign (after its delay), fail as a
 * signer that does not answer (SIGNER_UNAVAILABLE), hang until it is switched back
 * (then the held signatures fail), or sign a tx other than the one asked for (the
 * nonce after it).
 */
export type SignerDoubleMode = 'sign' | 'fail' | 'hang' | 'wrong'

export type SignerDouble = ReturnType<typeof signerDouble>

/**
 * A signer service the way the relayer meets one (a remote signer, KMS): a GasSigner
 * without `takePrivateKey`, so the relayer asks it for each signature and waits. It
 * signs with a real key (viem's local account), after `delayMs` (a number, or one per
 * tx), and can be switched to fail, hang or answer wrongly: what a chain cannot make a
 * signer do. It counts the signatures in flight (the most at once too) and keeps the
 * nonces it was asked for, in the order asked. Its `url` may carry credentials (a
 * token as the user, or a key in the path), as a real service's would: the description
 * is that URL redacted, as the real signers describe themselves.
 *
 * @example
 * const double = signerDouble(devnetAccounts.relayer.privateKey, { delayMs: 20 })
 * const relayer = await startTestRelayer(devnet, { gasSigner: double.signer })
 * double.mode = 'fail'
 */
export function signerDouble(
  privateKey: Hex,
  options: { delayMs?: number | ((tx: TransactionSerializableEIP1559) => number); url?: string } = {},
) {
  const account = privateKeyToAccount(privateKey)
  const delayOf = typeof options.delayMs === 'function' ? options.delayMs : () => (options.delayMs as number | undefined) ?? 0
  const description = redactUrl(options.url ?? 'https://signer.invalid/')
  let mode: SignerDoubleMode = 'sign'
  const held = new Set<(error: Error) => void>()
  const stats = { inFlight: 0, mostInFlight: 0, signed: 0, refused: 0, asked: [] as number[] }

  const unavailable = () => new SignerError('SIGNER_UNAVAILABLE', `the remote signer ${description} did not answer (connection refused)`, { fix: 'start the signer service' })

  const signer: GasSigner = {
    kind: 'remote',
    address: account.address,
    description,
    async signTransaction(tx) {
      stats.asked.push(tx.nonce ?? 0)
      stats.inFlight++
      stats.mostInFlight = Math.max(stats.mostInFlight, stats.inFlight)
      try {
        if (mode === 'hang') {
          await new Promise<never>((_, reject) => held.add(reject))
        }
        const delay = delayOf(tx)
        if (delay > 0) await Bun.sleep(delay)
        if (mode === 'fail') {
          stats.refused++
          throw unavailable()
        }
        const raw = await account.signTransaction(mode === 'wrong' ? { ...tx, nonce: (tx.nonce ?? 0) + 1 } : tx)
        stats.signed++
        return raw
      } finally {
        stats.inFlight--
      }
    },
  }

  return {
    signer,
    stats,
    get mode() {
      return mode
    },
    /** Switches what the next signatures do; leaving `hang` fails the signatures it held. */
    set mode(next: SignerDoubleMode) {
      mode = next
      if (next !== 'hang') {
        for (const reject of held) reject(unavailable())
        held.clear()
      }
    },
  }
}
