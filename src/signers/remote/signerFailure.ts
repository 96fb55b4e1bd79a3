import { redactUrl, redactUrls } from '../../shared/index.ts'
import { SignerError } from '../gasSigner.ts'
import type { JsonRpcFailure } from './jsonRpc.ts'

const credentialsFix =
  "give the relayer the signer's bearer token (RELAYER_SIGNER_TOKEN_FILE) or a client certificate it accepts (RELAYER_SIGNER_TLS_CERT, RELAYER_SIGNER_TLS_KEY)"

const reachFix = 'start the signer, or point RELAYER_SIGNER_URL at it'
// A TLS handshake the signer refuses looks like a connection that fails.
const tlsFix =
  "check the client certificate the signer requires (RELAYER_SIGNER_TLS_CERT, RELAYER_SIGNER_TLS_KEY) and the CA of the signer's own certificate (RELAYER_SIGNER_TLS_CA)"

/**
 * A failed call at start: the relayer does not start (SIGNER_CONFIG), the message names
 * the URL without credentials and what to fix.
 *
 * @example
 * throw startFailure(url, failure) // "remote signer https://signer.internal:9000 cannot be reached (…)"
 */
export function startFailure(url: string, failure: JsonRpcFailure): SignerError {
  const where = `remote signer ${redactUrl(url)}`
  const detail = redactUrls(failure.detail)
  switch (failure.kind) {
    case 'unreachable':
    case 'timeout':
      return new SignerError('SIGNER_CONFIG', `${where} cannot be reached (${detail})`, {
        fix: url.startsWith('https:') ? `${reachFix}; ${tlsFix}` : reachFix,
        cause: failure,
      })
    case 'http':
      return new SignerError('SIGNER_CONFIG', `${where} refused the relayer (${detail})`, {
        fix: failure.extra.status === 401 || failure.extra.status === 403 ? credentialsFix : 'check that RELAYER_SIGNER_URL is the signer\'s JSON-RPC endpoint',
        cause: failure,
      })
    default:
      return new SignerError('SIGNER_CONFIG', `${where} did not answer its account list (${detail})`, {
        fix: "check that RELAYER_SIGNER_URL is the JSON-RPC endpoint of a Web3Signer, Clef or another signer answering eth_accounts and eth_signTransaction",
        cause: failure,
      })
  }
}

/**
 * A failed signing call while running. Unreachable, too slow, an HTTP error or a JSON-RPC
 * error (an account the signer no longer holds or has locked included) is
 * SIGNER_UNAVAILABLE: nothing was signed, new orders wait until the signer answers
 * again. An answer that is not JSON-RPC is SIGNER_FAULT: the signer said something
 * other than what was asked.
 *
 * @example
 * throw signFailure(url, failure) // "remote signer https://signer.internal:9000 did not sign in time (…)"
 */
export function signFailure(url: string, failure: JsonRpcFailure): SignerError {
  const where = `remote signer ${redactUrl(url)}`
  const detail = redactUrls(failure.detail)
  switch (failure.kind) {
    case 'unreachable':
      return new SignerError('SIGNER_UNAVAILABLE', `${where} cannot be reached (${detail})`, { fix: 'start the signer again, or check the network to it', cause: failure })
    case 'timeout':
      return new SignerError('SIGNER_UNAVAILABLE', `${where} did not sign in time (${detail})`, { fix: 'check the signer\'s load and the network to it', cause: failure })
    case 'http':
      return new SignerError('SIGNER_UNAVAILABLE', `${where} refused to sign (${detail})`, {
        fix: failure.extra.status === 401 || failure.extra.status === 403 ? credentialsFix : 'check the signer\'s log',
        cause: failure,
      })
    case 'rpc':
      return new SignerError('SIGNER_UNAVAILABLE', `${where} refused to sign (${detail})`, {
        fix: "check that the signer still holds the relayer's account, unlocked, and its log",
        cause: failure,
      })
    case 'malformed':
      return new SignerError('SIGNER_FAULT', `signer fault: ${where} answered with ${detail}; nothing is broadcast`, {
        fix: 'check that RELAYER_SIGNER_URL is a JSON-RPC signer',
        cause: failure,
      })
  }
}
