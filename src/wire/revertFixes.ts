/** One known on-chain revert as the relayer's message names it, and what to do about it. */
export type RevertFix = {
  /** How the revert reads in a `WOULD_REVERT` message, e.g. `FeeTooHigh()` or `authorization used`. */
  revert: string
  /** Which contract raises it. */
  origin: string
  /** What the user should do. */
  fix: string
  /** Matches the decoded revert text (a custom error by its name, a revert string by its words). */
  matches: RegExp
  /** The fix for this very failure, from what the message says (e.g. the price the adapter asks); undefined: `fix`. */
  fixFrom?: (text: string) => string | undefined
}

/** A custom error, matched by its name at the start of the decoded text (`Name(` …). */
const named = (name: string) => new RegExp(`^${name}\\(`)

/**
 * The fix for every revert a settlement can hit, most specific first. A relayer
 * answers `WOULD_REVERT` with the decoded revert in its message; the generic fix of
 * `WOULD_REVERT` fits none of them well, so the CLI (and any client) shows this one.
 */
export const revertFixes: readonly RevertFix[] = [
  {
    revert: 'FeeTooHigh()',
    origin: 'Broker',
    fix: 'feeBps is above 10000 (100 % of amount): sign a new order with feeBps between the relayer\'s feeFloorBps (GET /info) and 10000.',
    matches: named('FeeTooHigh'),
  },
  {
    revert: 'WrongPayment(token, payee, amount)',
    origin: 'any adapter',
    fix: 'The order does not pay what the adapter asks (the revert names what it paid): sign a new order with the payToken, payee and amount the relayer\'s message says the adapter asks for, or ask the adapter\'s owner.',
    matches: named('WrongPayment'),
    fixFrom: (text) => {
      const asked = text.match(/the adapter asks for amount=(\d+) of payToken=(0x[0-9a-fA-F]{40}) paid to payee=(0x[0-9a-fA-F]{40})/)
      if (!asked) return undefined
      return `The order does not pay what the adapter asks: sign a new order with payToken ${asked[2]}, payee ${asked[3]} and amount ${asked[1]} (the relayer's fee comes out of that amount).`
    },
  },
  {
    revert: 'AllocationSoldOut(vaultId)',
    origin: 'AllocationAdapter',
    fix: 'That vault has no slot left or does not exist: pick another vault (order --vault ID), or ask the adapter\'s owner to add slots.',
    matches: named('AllocationSoldOut'),
  },
  {
    revert: 'NoLaneControl()',
    origin: 'ExpressLaneAdapter',
    fix: 'The lane operator does not control the current express-lane round: retry in a round it controls, or use another adapter.',
    matches: named('NoLaneControl'),
  },
  {
    revert: 'BadAttestation()',
    origin: 'AttestedAdapter',
    fix: 'The attestation is not signed by the adapter\'s attestor for this consumer: get a new attestation from the attestor.',
    matches: named('BadAttestation'),
  },
  {
    revert: 'AttestationExpired()',
    origin: 'AttestedAdapter',
    fix: 'The attestation\'s notAfter has passed: get a fresh attestation and sign a new order with it.',
    matches: named('AttestationExpired'),
  },
  {
    revert: 'AttestationUsed()',
    origin: 'AttestedAdapter',
    fix: 'That attestation was already redeemed (each settles once): get a new attestation and sign a new order with it.',
    matches: named('AttestationUsed'),
  },
  {
    revert: 'NotBroker()',
    origin: 'any adapter',
    fix: 'The adapter is bound to another Broker: use an adapter deployed for this relayer\'s Broker.',
    matches: named('NotBroker'),
  },
  {
    revert: 'ZeroAddress()',
    origin: 'any adapter',
    fix: 'The adapter was given a zero address: ask its owner to configure it; orders through it cannot settle until then.',
    matches: named('ZeroAddress'),
  },
  {
    revert: 'ReentrancyGuardReentrantCall()',
    origin: 'Broker',
    fix: 'The adapter calls back into the Broker, which it refuses: use another adapter.',
    matches: named('ReentrancyGuardReentrantCall'),
  },
  {
    revert: 'SafeERC20FailedOperation(token)',
    origin: 'Broker',
    fix: 'The payment token refused to pass on the fee or the payout: pay with a standard EIP-3009 token (such as USDC).',
    matches: named('SafeERC20FailedOperation'),
  },
  {
    revert: 'ERC20InsufficientBalance(sender, balance, needed)',
    origin: 'payment token',
    fix: 'The consumer holds less of the payment token than amount: fund the consumer\'s address, or lower amount.',
    matches: /^ERC20InsufficientBalance\(|transfer amount exceeds balance/i,
  },
  {
    revert: 'invalid signature',
    origin: 'payment token',
    fix: 'The signature is not order.consumer\'s over this exact order: sign with the consumer\'s key and send the order exactly as signed (any changed field breaks it).',
    matches: /invalid signature/i,
  },
  {
    revert: 'authorization used (cancelled)',
    origin: 'payment token',
    fix: 'The consumer cancelled this order\'s authorization (the message names the tx): nothing was paid; to buy, sign a new order with a fresh nonce.',
    matches: /authorization (is )?used.*cancelled this authorization/i,
  },
  {
    revert: 'authorization used',
    origin: 'payment token',
    fix: 'This order already settled (the message names the tx when known): to buy again, build a new order with a fresh nonce.',
    matches: /authorization (is )?used/i,
  },
  {
    revert: 'authorization expired',
    origin: 'payment token',
    fix: 'validBefore has passed by the chain\'s clock: re-sign with a later validBefore.',
    matches: /authorization (is )?expired/i,
  },
  {
    revert: 'authorization not yet valid',
    origin: 'payment token',
    fix: 'validAfter is still in the future by the chain\'s clock: wait until then, or re-sign with validAfter 0.',
    matches: /authorization (is )?not yet valid/i,
  },
  {
    revert: 'Pausable: paused',
    origin: 'payment token',
    fix: 'The token\'s issuer has paused it: no relayer can settle in it until it is unpaused; retry later or pay with another token.',
    matches: /paused|^EnforcedPause\(/i,
  },
  {
    revert: 'Blacklistable: account is blacklisted',
    origin: 'payment token',
    fix: 'The token\'s issuer has blacklisted an address in this payment: if it is the relayer\'s gas address (GET /info, relayer), choose another relayer; if it is the consumer or the payee, that address cannot pay or be paid in this token.',
    matches: /blacklist/i,
  },
]

/** The fix for a revert none of the above names. */
export const unknownRevertFix =
  'The chain would refuse this order as it stands (the consumer is not charged): change what the revert in the message names, or ask the adapter\'s owner what it expects.'

// A failure message carries the decoded revert after "would revert: " (simulation) or
// after "in tx 0x…: " (a broadcast tx that reverted).
const revertText = (message: string) =>
  message.match(/would revert: (.*)$/s)?.[1] ?? message.match(/in tx 0x[0-9a-fA-F]{64}: (.*)$/s)?.[1]

/** The entry for the revert a `WOULD_REVERT` / `AUTH_EXPIRED` message names, if it is known. */
export function findRevertFix(message: string): RevertFix | undefined {
  const text = revertText(message)
  if (text === undefined) return undefined
  return revertFixes.find((entry) => entry.matches.test(text))
}

/** The fix line for the revert a message names: the entry's own for this message where it has one, else its `fix`. */
export function revertFixFor(message: string): string | undefined {
  const entry = findRevertFix(message)
  if (!entry) return undefined
  return entry.fixFrom?.(revertText(message) ?? '') ?? entry.fix
}
