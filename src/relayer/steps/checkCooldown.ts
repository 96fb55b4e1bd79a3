import type { Address } from 'viem'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * Before simulation: a consumer whose order passed simulation and then reverted on
 * chain is refused until its cool-down ends (RELAYER_REVERT_COOLDOWN_MS), so no
 * client can make the gas key pay for reverts again and again.
 * @throws RelayError WOULD_REVERT naming the reverted tx and the end of the cool-down
 */
export function checkCooldown(context: Pick<RelayerContext, 'journal'>, consumer: Address, now = Date.now()) {
  const cooldown = context.journal.cooldown(consumer)
  if (!cooldown || cooldown.until <= now) return
  throw new RelayError(
    'WOULD_REVERT',
    `refused until ${new Date(cooldown.until).toISOString()}: an order from consumer ${consumer} passed simulation and reverted on chain in tx ${cooldown.txHash}; ask the consumer to check its authorizations, then retry after that time`,
  )
}
