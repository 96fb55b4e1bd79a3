import { type AbiFunction, type Address, type Hex, toFunctionSelector } from 'viem'
import { batchSimulatorAbi } from '../../chain/index.ts'
import { writeUint256 } from '../../wire/hashOrder.ts'
import { bytesToHex, hexToBytes, writeHex } from '../../wire/hexBytes.ts'
import { maxUint256 } from '../../wire/primitives.ts'

// BatchSimulator's `simulate(address target, bytes[] calls, uint256[] gas) returns (bytes[])`,
// encoded and decoded by hand for its one layout: viem's encoder and decoder took ~35 µs
// of every batched order (~0.6 ms for a batch of 16), in hex strings.

const simulateFunction = batchSimulatorAbi.find((item) => item.type === 'function' && item.name === 'simulate') as AbiFunction
const selector = toFunctionSelector(simulateFunction)
const word = 32
const padded = (length: number) => Math.ceil(length / word) * word

/** One call of the batch: its calldata and the gas it may use. */
export type SimulateCall = { data: Hex; executionGas: bigint }

/** The calldata of `simulate(target, calls, gas)`: the bytes of viem's `encodeFunctionData`. */
export function encodeSimulateCall(target: Address, calls: readonly SimulateCall[]): Hex {
  const n = calls.length
  const lengths = calls.map((call) => {
    if (call.data.length % 2 !== 0 || !call.data.startsWith('0x')) throw new Error('encodeSimulateCall: a call is not 0x-prefixed, even-length hex')
    return (call.data.length - 2) / 2
  })
  // calls: its length, n offsets, then each one's length word and padded bytes.
  let callsSize = word + n * word
  for (const length of lengths) callsSize += word + padded(length)
  const gasAt = 3 * word + callsSize
  const bytes = new Uint8Array(4 + gasAt + word + n * word)
  writeHex(bytes, 0, 4, selector, 2)
  const head = 4
  if (target.length !== 42 || !writeHex(bytes, head, word, target, 2)) throw new Error('encodeSimulateCall: target is not an address')
  writeUint256(bytes, head + word, 3n * BigInt(word))
  writeUint256(bytes, head + 2 * word, BigInt(gasAt))
  const callsAt = head + 3 * word
  writeUint256(bytes, callsAt, BigInt(n))
  // Offsets count from just after the length word.
  let offset = n * word
  for (let i = 0; i < n; i++) {
    writeUint256(bytes, callsAt + word + i * word, BigInt(offset))
    const at = callsAt + word + offset
    writeUint256(bytes, at, BigInt(lengths[i]!))
    if (!writeHex(bytes, at + word, lengths[i]!, calls[i]!.data, 2)) throw new Error('encodeSimulateCall: a call is not 0x-prefixed, even-length hex')
    offset += word + padded(lengths[i]!)
  }
  writeUint256(bytes, head + gasAt, BigInt(n))
  for (let i = 0; i < n; i++) {
    const gas = calls[i]!.executionGas
    if (gas < 0n || gas > maxUint256) throw new Error('encodeSimulateCall: a gas limit does not fit in uint256')
    writeUint256(bytes, head + gasAt + word + i * word, gas)
  }
  return bytesToHex(bytes)
}

/**
 * What one call did: passed, or reverted with this data ('0x' when empty or out of gas), and the
 * gas it took (the CALL's own cost included); undefined when it could not run.
 */
export type SimulateResult = { ok: true; gasUsed: bigint } | { ok: false; data: Hex; gasUsed: bigint } | undefined

/**
 * The `bytes[]` that `simulate` returns, each element `abi.encode(bool ok, uint256 gasUsed, bytes out)`
 * read as a result (undefined for an element too short or malformed: its order is then
 * simulated on its own). Throws when the whole is not a `bytes[]`.
 */
export function decodeSimulateResults(returned: Hex): SimulateResult[] {
  const bytes = hexToBytes(returned)
  if (!bytes) throw new Error('the batch simulation returned data that is not hex')
  const at = readSize(bytes, 0)
  const n = readSize(bytes, at)
  if (at === undefined || n === undefined) throw new Error('the batch simulation returned data that is not a bytes[]')
  const results: SimulateResult[] = []
  for (let i = 0; i < n; i++) {
    const offset = readSize(bytes, at + word + i * word)
    const start = offset === undefined ? undefined : at + word + offset
    const length = start === undefined ? undefined : readSize(bytes, start)
    if (start === undefined || length === undefined || start + word + length > bytes.length) throw new Error('the batch simulation returned data that is not a bytes[]')
    results.push(decodeResult(bytes.subarray(start + word, start + word + length)))
  }
  return results
}

/** `abi.encode(bool, uint256, bytes)`; undefined when it is not one (as viem's decoder would refuse it). */
function decodeResult(packed: Uint8Array): SimulateResult {
  if (packed.length < 3 * word) return undefined
  const ok = readSize(packed, 0)
  const gasUsed = readSize(packed, word)
  const offset = readSize(packed, 2 * word)
  if ((ok !== 0 && ok !== 1) || gasUsed === undefined || offset === undefined) return undefined
  const length = readSize(packed, offset)
  if (length === undefined || offset + word + length > packed.length) return undefined
  return ok === 1
    ? { ok: true, gasUsed: BigInt(gasUsed) }
    : { ok: false, data: bytesToHex(packed.subarray(offset + word, offset + word + length)), gasUsed: BigInt(gasUsed) }
}

/** A word read as a size (offset, length, count, bool): undefined when it is out of the data or over 2^32. */
function readSize(bytes: Uint8Array, at: number | undefined): number | undefined {
  if (at === undefined || at + word > bytes.length) return undefined
  for (let i = at; i < at + word - 4; i++) if (bytes[i] !== 0) return undefined
  return ((bytes[at + 28]! << 24) >>> 0) + (bytes[at + 29]! << 16) + (bytes[at + 30]! << 8) + bytes[at + 31]!
}
