import { edgeErrorCodes, relayErrorCodes, routeErrorCodes } from './codes.ts'
import { revertFixFor, unknownRevertFix } from './revertFixes.ts'

/** Fixes for the codes a client library answers itself (no relayer sent them). */
const clientFixes: Record<string, string> = {
  BAD_RESPONSE: 'That URL did not answer as an order-relay relayer: check it is a relayer\'s base URL, or choose another relayer.',
  NETWORK: 'The relayer could not be reached: check the URL and that it is running, or choose another relayer.',
}

/** Where one code has causes that need different fixes, the message tells them apart. */
const messageFixes: { code: string; matches: RegExp; fix: string }[] = [
  { code: 'MALFORMED_ORDER', matches: /Content-Type must be application\/json/, fix: 'Send the body with the header Content-Type: application/json.' },
  {
    code: 'MALFORMED_ORDER',
    matches: /not valid JSON|not valid UTF-8|body must be a JSON object/,
    fix: 'Send the RelayRequest as one JSON object, UTF-8 encoded (docs/routes.md lists its fields).',
  },
  { code: 'MALFORMED_ORDER', matches: /larger than \d+ bytes/, fix: 'A request is at most 64 KiB: shorten params, the only field that can grow.' },
  {
    code: 'MALFORMED_ORDER',
    matches: /chainId is not one this relayer serves/,
    fix: 'Sign the order for the chain this relayer serves, or choose a relayer that serves yours (GET /info, supportedChainIds).',
  },
  {
    code: 'UPSTREAM_RPC',
    matches: /shared state \(Redis, RELAYER_REDIS_URL\) (is unavailable|has a new epoch)/,
    fix: 'That relayer\'s replicas are restoring their shared state and take no new order for a few seconds: send the same request again shortly (it is never sent twice), or to another relayer.',
  },
  {
    code: 'UPSTREAM_RPC',
    matches: /GET \/broker\/0x[0-9a-fA-F]{64}/,
    fix: 'Do not sign this order again: follow GET /broker/{orderHash} on that relayer until it says settled (with the tx) or reverted, then send the same request again for its answer (the client library does both).',
  },
  {
    code: 'UPSTREAM_RPC',
    matches: /nothing was spent on this order and it can still settle/,
    fix: 'Nothing of this order was spent and it can still settle: send the same request again (it is checked and signed anew), or to another relayer. Do not sign a new order for it: both could be settled.',
  },
  {
    code: 'FEE_BELOW_FLOOR',
    matches: /nothing was spent on this order and it can still settle/,
    fix: 'Nothing of this order was spent and it can still settle: send the same request again once gas is cheaper, or to another relayer. Sign a new order with a higher fee only once this one can no longer settle (its validBefore has passed): both could be settled.',
  },
  {
    code: 'UPSTREAM_RPC',
    matches: /tx 0x[0-9a-fA-F]{64}/,
    fix: 'The order may still settle in the tx named: check that tx before signing a new order; sending this same request again is safe (an order settles at most once).',
  },
]

/**
 * The one line a user should act on for a failure with `code` and `message`: the
 * fix of the decoded revert for `WOULD_REVERT` (else a generic one; for `WrongPayment`
 * the price and payee the message says the adapter asks for), the fix of the
 * cause the message names where a code has several, otherwise the code's own fix.
 *
 * @example
 * fixFor('WOULD_REVERT', 'would revert: FeeTooHigh()') // 'feeBps is above 10000 …'
 */
export function fixFor(code: string, message: string): string | undefined {
  if (code === 'WOULD_REVERT') return revertFixFor(message) ?? unknownRevertFix
  if (code === 'AUTH_EXPIRED') return revertFixFor(message) ?? relayErrorCodes.AUTH_EXPIRED.fix
  const specific = messageFixes.find((entry) => entry.code === code && entry.matches.test(message))
  if (specific) return specific.fix
  const known = (relayErrorCodes as Record<string, { fix: string }>)[code] ?? (edgeErrorCodes as Record<string, { fix: string }>)[code] ?? (routeErrorCodes as Record<string, { fix: string }>)[code]
  return known?.fix ?? clientFixes[code]
}
