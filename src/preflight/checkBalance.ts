import { type Address, formatEther, type PublicClient } from 'viem'
import { type CheckResult, fail, pass } from './checkResult.ts'

/**
 * The gas key's balance against RELAYER_GAS_FLOOR_WEI, below which the relayer pauses
 * POST /broker (docs/relayer-safety.md).
 */
export async function checkBalance(client: PublicClient, options: { address: Address; floorWei: bigint }): Promise<CheckResult> {
  const { address, floorWei } = options
  const balance = await client.getBalance({ address })
  const shown = `${address} holds ${formatEther(balance)} ETH`
  if (balance < floorWei) {
    return fail(
      'gas balance',
      `${shown}, below RELAYER_GAS_FLOOR_WEI ${floorWei} wei (${formatEther(floorWei)} ETH): POST /broker pauses`,
      `send at least ${formatEther(floorWei - balance)} ETH to ${address}, or lower RELAYER_GAS_FLOOR_WEI`,
    )
  }
  return pass('gas balance', `${shown}, at or above RELAYER_GAS_FLOOR_WEI (${formatEther(floorWei)} ETH)`)
}
