import type { Address } from 'viem'
import type { RelayRequest } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * Before simulation: orders that passed simulation and then reverted on chain must not make
 * the gas key pay again and again, wherever they come from (RELAYER_REVERT_COOLDOWN_MS):
 * - a consumer with such a revert is refused until the cool-down after it ends;
 * - an adapter, or a pay token, with RELAYER_REVERT_COOLDOWN_MAX such reverts within the
 *   cool-down is refused until the cool-down after the last of them ends (a fresh address
 *   per order escapes the consumer's cool-down, never these).
 * @throws RelayError WOULD_REVERT naming what is refused, why and until when
 */
export function checkCooldown(context: Pick<RelayerContext, 'journal' | 'config'>, order: RelayRequest['order'], now = Date.now()) {
  const windowMs = context.config.revertCooldownMs
  if (windowMs <= 0) return
  const since = now - windowMs
  const { journal } = context
  const consumer = order.consumer as Address
  const [last] = journal.reverts('consumer', consumer, since, 1)
  if (last) {
    throw new RelayError(
      'WOULD_REVERT',
      `refused until ${new Date(last.at + windowMs).toISOString()}: an order from consumer ${consumer} passed simulation and reverted on chain in tx ${last.txHash}; ask the consumer to check its authorizations, then retry after that time`,
    )
  }
  const max = context.config.revertCooldownMax
  for (const [by, address, what] of [['adapter', order.adapter, 'adapter'], ['payToken', order.payToken, 'pay token']] as const) {
    const recent = journal.reverts(by, address as Address, since, max)
    if (recent.length < max) continue
    const latest = recent[0]!
    const until = new Date(recent[max - 1]!.at + windowMs).toISOString()
    throw new RelayError(
      'WOULD_REVERT',
      `refused until ${until}: orders through ${what} ${address} passed simulation and reverted on chain ${max} times within ${windowMs / 1000} s (the latest in tx ${latest.txHash}); this relayer does not pay for them again before then (RELAYER_REVERT_COOLDOWN_MAX); retry after that time or choose another relayer`,
    )
  }
}
