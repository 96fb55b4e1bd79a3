import { type Abi, BaseError, decodeErrorResult, type Hex, isHex, size, toFunctionSelector } from 'viem'
import { formatAbiItem } from 'viem/utils'
import { contractNameOf } from './abis.ts'

type AbiError = Extract<Abi[number], { type: 'error' }>

/** A decoded revert: the error's name, its named arguments, and one readable line. */
export type DecodedRevert = {
  /** `Error` for a revert string, `Panic` for a panic, else the custom error's name. */
  name: string
  /** Named arguments as strings (integers decimal, addresses/bytes hex). */
  args: Record<string, string>
  /** e.g. `AllocationSoldOut(vaultId=7)`, `invalid signature`, `Panic(0x11)`. */
  text: string
  /** The contract whose ABI declares the custom error, when one alone of the ABIs given does; absent for `Error`, `Panic` and unknown errors. */
  contract?: string
  /** The revert data's first four bytes; absent when there were fewer. */
  selector?: Hex
  /** The revert data as returned by the node; absent when there was none. */
  data?: Hex
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
  if (!data || size(data) < 4) return { name: 'unknown', args: {}, text: 'execution reverted without a reason', ...(data && size(data) > 0 ? { data } : {}) }
  const { abi: errors, contracts } = dedupeErrors(abis)
  const selector = data.slice(0, 10).toLowerCase() as Hex
  const raw = { selector, data }
  try {
    const decoded = decodeErrorResult({ abi: errors, data })
    const item = decoded.abiItem as AbiError
    const values = (decoded.args ?? []) as readonly unknown[]
    if (decoded.errorName === 'Error') {
      const reason = String(values[0] ?? '')
      return { name: 'Error', args: { reason }, text: reason, ...raw }
    }
    if (decoded.errorName === 'Panic') {
      const code = `0x${(values[0] as bigint).toString(16)}`
      return { name: 'Panic', args: { code }, text: `Panic(${code})`, ...raw }
    }
    const args: Record<string, string> = {}
    item.inputs.forEach((input, i) => {
      args[input.name || `arg${i}`] = formatValue(values[i])
    })
    const list = Object.entries(args).map(([k, v]) => `${k}=${v}`).join(', ')
    const contract = contracts.get(selector)
    return { name: decoded.errorName, args, text: `${decoded.errorName}(${list})`, ...(contract ? { contract } : {}), ...raw }
  } catch {
    return { name: 'unknown', args: {}, text: `unknown error ${data.slice(0, 10)}`, ...raw }
  }
}

type DedupedErrors = { abi: Abi; contracts: Map<string, string> }
const dedupeCache = new WeakMap<readonly Abi[], DedupedErrors>()

// Several ABIs declare the same error (NotBroker, ZeroAddress): keep one per selector.
// Its contract is named only when one contract alone declares it: the revert data does
// not say which of several reverted.
function dedupeErrors(abis: readonly Abi[]): DedupedErrors {
  const cached = dedupeCache.get(abis)
  if (cached) return cached
  const bySelector = new Map<string, AbiError>()
  const declaredBy = new Map<string, Set<string | undefined>>()
  for (const abi of abis) {
    const contract = contractNameOf(abi)
    for (const item of abi) {
      if (item.type !== 'error') continue
      const selector = toFunctionSelector(formatAbiItem(item)).toLowerCase()
      if (!declaredBy.has(selector)) declaredBy.set(selector, new Set())
      declaredBy.get(selector)!.add(contract)
      if (!bySelector.has(selector)) bySelector.set(selector, item)
    }
  }
  const contracts = new Map<string, string>()
  for (const [selector, names] of declaredBy) {
    const [only] = names
    if (names.size === 1 && only) contracts.set(selector, only)
  }
  const result = { abi: [...bySelector.values()] as Abi, contracts }
  dedupeCache.set(abis, result)
  return result
}
