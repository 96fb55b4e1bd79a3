import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem'
import { lienRegistryAbi } from '../chain/index.ts'
import { isBytes32String } from '../wire/index.ts'

/** The `eth_call` transaction object reading `isEncumbered(lienId)` on `registry`. */
export function isEncumberedRequest(registry: Address, lienId: Hex): { to: Address; data: Hex } {
  return { to: registry, data: encodeFunctionData({ abi: lienRegistryAbi, functionName: 'isEncumbered', args: [lienId] }) }
}

/** Decodes an `isEncumbered` result; undefined when it is not one ABI-encoded bool (e.g. `0x`: no contract). */
export function decodeIsEncumbered(result: Hex): boolean | undefined {
  if (!isBytes32String(result)) return undefined
  try {
    return decodeFunctionResult({ abi: lienRegistryAbi, functionName: 'isEncumbered', data: result })
  } catch {
    return undefined
  }
}
