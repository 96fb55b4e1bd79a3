import { type Abi, BaseError, decodeErrorResult, type Hex, isHex, size, toFunctionSelector } from 'viem'
import { formatAbiItem } from 'viem/utils'

type AbiError = Extract<Abi[number], { type: 'error' }>

/** A decoded revert: the error's name, its named arguments, and one readable line. */
export type DecodedRevert = {
  /** `Error` for a revert string, `Panic` for a panic, else the custom error's name. */
  name: string
  /** Named arguments as strings (integers decimal, addresses/bytes hex). */
  args: Record<string, string>
  /** e.g. `AllocationSoldOut(vaultId=7)`, `invalid signature`, `Panic(0x11)`. */
  text: string
}

/** Pulls revert data out of a viem error chain (eth_call, estimateGas, receipt replay). */
export function extractRevertData(error: unknown): Hex | undefined {
  let current: unknown = error
  for (let depth = 0; current && depth < 10; depth++) {
    const data = (current as { data?: unknown }).data
    if (typeof data === 'string' && isHex(data)) return data
    if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') {
      const inner = (data as { data: string }).data
      if (isHex(inner)) return inner
    }
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** True when the error chain says the node executed the call and it reverted. */
export function isRevertError(error: unknown): boolean {
  if (extractRevertData(error) !== undefined) return true
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => {
      const text = `${(e as Error).message ?? ''} ${(e as BaseError).details ?? ''}`
      return /execution reverted|revert/i.test(text) && !/insufficient funds/i.test(text)
    })
    return Boolean(reverted)
  }
  return false
}

function formatValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return `[${value.map(formatValue).join(',')}]`
  if (value && typeof value === 'object') return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
  return String(value)
}

/**
 * Decodes revert data against the given ABIs: `Error(string)`, `Panic(uint256)`, and
 * every custom error they declare.
 *
 * @example
 * decodeRevert('0x…', [brokerAbi, allocationAdapterAbi]) // { name: 'AllocationSoldOut', args: { vaultId: '7' }, text: 'AllocationSoldOut(vaultId=7)' }
 */
export function decodeRevert(data: Hex | undefined, abis: readonly Abi[]): DecodedRevert {
  if (!data || size(data) < 4) return { name: 'unknown', args: {}, text: 'execution reverted without a reason' }
  const errors = dedupeErrors(abis)
  try {
    const decoded = decodeErrorResult({ abi: errors, data })
    const item = decoded.abiItem as AbiError
    const values = (decoded.args ?? []) as readonly unknown[]
    if (decoded.errorName === 'Error') {
      const reason = String(values[0] ?? '')
      return { name: 'Error', args: { reason }, text: reason }
    }
    if (decoded.errorName === 'Panic') {
      const code = `0x${(values[0] as bigint).toString(16)}`
      return { name: 'Panic', args: { code }, text: `Panic(${code})` }
    }
    const args: Record<string, string> = {}
    item.inputs.forEach((input, i) => {
      args[input.name || `arg${i}`] = formatValue(values[i])
    })
    const list = Object.entries(args).map(([k, v]) => `${k}=${v}`).join(', ')
    return { name: decoded.errorName, args, text: `${decoded.errorName}(${list})` }
  } catch {
    return { name: 'unknown', args: {}, text: `unknown error ${data.slice(0, 10)}` }
  }
}

const dedupeCache = new WeakMap<readonly Abi[], Abi>()

// Several ABIs declare the same error (NotBroker, ZeroAddress): keep one per selector.
function dedupeErrors(abis: readonly Abi[]): Abi {
  const cached = dedupeCache.get(abis)
  if (cached) return cached
  const bySelector = new Map<string, AbiError>()
  for (const abi of abis) {
    for (const item of abi) {
      if (item.type !== 'error') continue
      const selector = toFunctionSelector(formatAbiItem(item))
      if (!bySelector.has(selector)) bySelector.set(selector, item)
    }
  }
  const result = [...bySelector.values()] as Abi
  dedupeCache.set(abis, result)
  return result
}
