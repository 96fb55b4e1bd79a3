import type { Address, PublicClient } from 'viem'
import { createL1Component, nodeInterfaceAddress } from '../relayer/economics/index.ts'
import { createMemoryLogger } from '../shared/index.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'

/**
 * On Arbitrum-family chains: whether the node answers for NodeInterface, asked the way the
 * relayer asks at start (l1Component.ts `detect`). An answer prices orders with their L1
 * data gas; an empty answer (no NodeInterface, as on a local anvil) turns the component
 * off; a failed call means orders are refused until it answers.
 */
export async function checkNodeInterface(client: PublicClient, options: { chainId: number; broker: Address; variable: string }): Promise<CheckResult> {
  const logger = createMemoryLogger()
  const l1 = createL1Component({ client, chainId: options.chainId, logger })
  await l1.detect(options.broker)
  const warning = logger.lines.find((line) => line.startsWith('warn: '))
  if (warning) {
    return fail('NodeInterface', warning.slice('warn: '.length), `point ${options.variable} at an Arbitrum node that answers eth_call to NodeInterface (${nodeInterfaceAddress})`)
  }
  return l1.enabled
    ? pass('NodeInterface', `answers at ${nodeInterfaceAddress}: orders are priced with their L1 data gas`)
    : pass('NodeInterface', `no NodeInterface at ${nodeInterfaceAddress} (a local node such as anvil): orders are priced without an L1 data component`)
}
