/** Which of an order's parts a revert on chain counts against, besides its consumer. */
export type Blame = { adapter: boolean; payToken: boolean }

/**
 * Where an order's revert came from, read from its decoded reason (replayed at its block),
 * so that it cools down what caused it (steps/checkCooldown.ts) and nothing else:
 * - the consumer's authorization (used, cancelled, expired, a bad signature) or the order's
 *   own fields (`FeeTooHigh()`): the consumer alone;
 * - the pay token's own failure (`SafeERC20FailedOperation`, an ERC-20 or FiatToken message
 *   about balances or transfers): the pay token;
 * - anything else (an adapter's custom error, an unknown selector, a re-entrance, a panic, no
 *   reason or out of gas): the adapter, the one other code the order runs.
 * A well-behaved token thus cannot be made to cool down through an attacker's adapter.
 */
export function blameRevert(reason: string | undefined): Blame {
  const text = reason ?? ''
  if (/authoriz|signature|FeeTooHigh\(\)/i.test(text)) return { adapter: false, payToken: false }
  if (/^SafeERC20FailedOperation\(|ERC20|FiatToken|transfer|balance|allowance|blacklist/i.test(text)) return { adapter: false, payToken: true }
  return { adapter: true, payToken: false }
}
