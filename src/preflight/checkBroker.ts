import type { Address, PublicClient } from 'viem'
import { brokerAbi } from '../chain/index.ts'
import { nodeSays } from '../relayer/index.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'

/**
 * The Broker has code and answers as a Broker: `feeOf(10000, 100)` (a pure function
 * every Broker has) returns 100. `variable` names where the address came from
 * (RELAYER_BROKER, or the manifest's contracts.broker).
 */
export async function checkBroker(client: PublicClient, options: { broker: Address; chainId: number; variable: string }): Promise<CheckResult> {
  const { broker, chainId, variable } = options
  const code = await client.getCode({ address: broker })
  if (!code || code === '0x') {
    return fail('broker', `${variable} ${broker} has no code on chain ${chainId}`, `set ${variable} to the Broker deployed on chain ${chainId} (order-relay deploy deploys one and writes its manifest)`)
  }
  let fee: bigint | undefined
  let why = 'it answered another value'
  try {
    fee = await client.readContract({ address: broker, abi: brokerAbi, functionName: 'feeOf', args: [10_000n, 100] })
  } catch (error) {
    why = nodeSays(error)
  }
  if (fee !== 100n) {
    return fail('broker', `${variable} ${broker} has code but does not answer feeOf() as a Broker (${why})`, `set ${variable} to the Broker contract's address, not another contract's`)
  }
  return pass('broker', `${broker} answers as a Broker`)
}
