import type { Address, TransactionSerializableEIP1559 } from 'viem'
import { getAddress, isAddress } from 'viem'
import { type Logger, redactUrl, silentLogger } from '../../shared/index.ts'
import { checkSignedTx } from '../checkSignedTx.ts'
import { type GasSigner, SignerError } from '../gasSigner.ts'
import { type JsonRpcConnection, JsonRpcFailure, type RemoteSignerTls } from './jsonRpc.ts'
import { startFailure, signFailure } from './signerFailure.ts'
import { signerAccounts } from './signerAccounts.ts'
import { signRequest, signTransactionCall } from './signTransactionCall.ts'

export type RemoteSignerOptions = {
  /** The signer's JSON-RPC endpoint (RELAYER_SIGNER_URL). */
  url: string
  /** The account it signs with (RELAYER_SIGNER_ADDRESS). */
  address: Address
  /** The chain served: asked for and checked in every signed tx. */
  chainId: number
  /** A bearer token, sent as `Authorization: Bearer …`, never shown. */
  token?: string | undefined
  /** A client certificate and its key, and the CA that signed the signer's certificate: PEM contents. */
  tls?: RemoteSignerTls | undefined
  /** How long one call may take before the signer counts as unavailable. */
  timeoutMs: number
  /** Where signer faults are reported (the relayer's log). */
  logger?: Logger | undefined
}

/**
 * The gas key held by a signer outside the process, over JSON-RPC: Web3Signer, Clef
 * (its `account_*` methods), geth or anvil. At start the signer must answer and hold
 * `address` (else SIGNER_CONFIG). Each signature is `eth_signTransaction`, and the
 * signed tx is decoded and checked (checkSignedTx) before it is returned (or, by
 * `signTransactionUnchecked`, left for the caller to check, as the relayer's signer
 * thread does): another
 * sender or any field other than asked is a SIGNER_FAULT, logged, never returned. No
 * answer, a timeout, an HTTP or JSON-RPC error is SIGNER_UNAVAILABLE. Messages show the
 * URL without credentials and never the token.
 *
 * @example
 * const signer = await createRemoteSigner({ url: 'https://signer.internal:9000', address, chainId: 421614, timeoutMs: 5000 })
 * const raw = await signer.signTransaction(tx)
 */
export async function createRemoteSigner(options: RemoteSignerOptions): Promise<GasSigner> {
  const shown = redactUrl(options.url)
  if (!isAddress(options.address, { strict: false })) {
    throw new SignerError('SIGNER_CONFIG', 'the remote signer\'s account is not an address', { fix: 'set RELAYER_SIGNER_ADDRESS to 0x followed by 40 hex digits' })
  }
  if (Boolean(options.tls?.cert) !== Boolean(options.tls?.key)) {
    throw new SignerError('SIGNER_CONFIG', 'the remote signer\'s client certificate is given without its key, or the key without it', {
      fix: 'set both RELAYER_SIGNER_TLS_CERT and RELAYER_SIGNER_TLS_KEY, or neither',
    })
  }
  const address = getAddress(options.address)
  const connection: JsonRpcConnection = { url: options.url, token: options.token, tls: options.tls, timeoutMs: options.timeoutMs }
  const logger = options.logger ?? silentLogger

  let held: Awaited<ReturnType<typeof signerAccounts>>
  try {
    held = await signerAccounts(connection)
  } catch (error) {
    if (error instanceof JsonRpcFailure) throw startFailure(options.url, error)
    throw error
  }
  if (!held.accounts.includes(address.toLowerCase())) {
    throw new SignerError('SIGNER_CONFIG', `remote signer ${shown} does not hold ${address} (it holds ${heldText(held.accounts)})`, {
      fix: 'load the gas key into the signer, or set RELAYER_SIGNER_ADDRESS to one of the accounts it holds',
    })
  }

  /** The tx as asked of the signer, and as its answer is checked against: the chain id filled in. */
  const askedOf = (tx: TransactionSerializableEIP1559): TransactionSerializableEIP1559 => ({ ...tx, chainId: tx.chainId ?? options.chainId, type: 'eip1559' })

  /** `eth_signTransaction` (or Clef's call): the signer's raw answer, unchecked. */
  async function signUnchecked(tx: TransactionSerializableEIP1559): Promise<`0x${string}`> {
    const asked = askedOf(tx)
    if (asked.chainId !== options.chainId) {
      throw new SignerError('SIGNER_CONFIG', `a tx for chain ${asked.chainId} was given to the remote signer of chain ${options.chainId}`)
    }
    try {
      return await signTransactionCall(connection, held.dialect, signRequest(address, asked, options.chainId))
    } catch (error) {
      if (!(error instanceof JsonRpcFailure)) throw error
      const failure = signFailure(options.url, error)
      if (failure.code === 'SIGNER_FAULT') logger.error(failure.shortMessage)
      throw failure
    }
  }

  const credentials = [options.token ? 'bearer token' : undefined, options.tls?.cert ? 'mTLS' : undefined].filter(Boolean)
  return {
    kind: 'remote',
    address,
    description: [`remote signer ${shown} (${address})`, ...credentials].join(', '),
    signTransactionUnchecked: signUnchecked,
    async signTransaction(tx: TransactionSerializableEIP1559) {
      const raw = await signUnchecked(tx)
      try {
        await checkSignedTx(askedOf(tx), raw, address)
      } catch (error) {
        if (error instanceof SignerError) {
          const fault = new SignerError(error.code, `${error.shortMessage} (remote signer ${shown})`, { fix: error.fix, cause: error.cause })
          logger.error(fault.shortMessage)
          throw fault
        }
        throw error
      }
      return raw
    },
    // Each call is its own fetch: there is nothing held open.
    close: async () => {},
  }
}

/** The accounts a signer holds, for a message: the first five and how many more. */
function heldText(accounts: string[]): string {
  if (accounts.length === 0) return 'no account'
  const shown = accounts.slice(0, 5).join(', ')
  return accounts.length > 5 ? `${shown} and ${accounts.length - 5} more` : shown
}
