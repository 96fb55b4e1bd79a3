// BatchSimulator's simulate() call, encoded and decoded by hand, against viem's
// encoder and decoder: the same calldata for random batches, the same results for
// random answers, and malformed answers refused or read as "could not run".
import { expect, test } from 'bun:test'
import { decodeAbiParameters, decodeFunctionResult, encodeAbiParameters, encodeFunctionData, type Hex, size } from 'viem'
import { batchSimulatorAbi } from '../../src/chain/index.ts'
import { decodeSimulateResults, encodeSimulateCall } from '../../src/relayer/simulation/batchAbi.ts'
import { createRandom } from '../helpers/random.ts'

const rng = createRandom(0x51a7e)
const bytesOf = (length: number) => `0x${rng.hex(length)}` as Hex

/** How the relayer read an answer with viem before. */
function viemResults(returned: Hex) {
  const results = decodeFunctionResult({ abi: batchSimulatorAbi, functionName: 'simulate', data: returned }) as readonly Hex[]
  return results.map((packed) => {
    if (size(packed) < 96) return undefined
    try {
      const [ok, gasUsed, out] = decodeAbiParameters([{ type: 'bool' }, { type: 'uint256' }, { type: 'bytes' }], packed)
      if (gasUsed >= 2n ** 32n) return undefined
      return ok ? { ok: true as const, gasUsed } : { ok: false as const, data: out, gasUsed }
    } catch {
      return undefined
    }
  })
}

test('300 random batches: the same calldata as viem encodeFunctionData', () => {
  for (let i = 0; i < 300; i++) {
    const target = `0x${rng.hex(20)}` as const
    const calls = Array.from({ length: rng.int(0, 64) }, () => ({ data: bytesOf(rng.pick([0, 1, 4, 31, 32, 33, 548, rng.int(0, 2_000)])), executionGas: rng.pick([0n, 1n, 21_000n, rng.uint256()]) }))
    const viem = encodeFunctionData({ abi: batchSimulatorAbi, functionName: 'simulate', args: [target, calls.map((call) => call.data), calls.map((call) => call.executionGas)] })
    expect(encodeSimulateCall(target, calls)).toBe(viem)
  }
})

test('300 random answers: the same results as viem (gas used included), elements too short or malformed, or claiming 2^32 gas or more, read as undefined', () => {
  for (let i = 0; i < 300; i++) {
    const packed = Array.from({ length: rng.int(0, 64) }, (): Hex => {
      const kind = rng.int(0, 5)
      if (kind === 0) return bytesOf(rng.int(0, 95))
      if (kind === 1) return bytesOf(rng.int(96, 200))
      const gasUsed = rng.pick([0n, 21_000n, BigInt(rng.int(0, 30_000_000)), 2n ** 32n - 1n, 2n ** 32n])
      return encodeAbiParameters([{ type: 'bool' }, { type: 'uint256' }, { type: 'bytes' }], [rng.chance(0.5), gasUsed, bytesOf(rng.pick([0, 4, 36, 68, rng.int(0, 300)]))])
    })
    const returned = encodeAbiParameters([{ type: 'bytes[]' }], [packed])
    expect(decodeSimulateResults(returned)).toEqual(viemResults(returned))
  }
})

test('an answer that is not a bytes[] throws, as viem does', () => {
  const good = encodeAbiParameters([{ type: 'bytes[]' }], [[bytesOf(100)]])
  for (const bad of ['0x', '0x12', `0x${'00'.repeat(31)}`, good.slice(0, -66) as Hex, `0x${'ff'.repeat(64)}` as Hex]) {
    expect(() => decodeSimulateResults(bad as Hex)).toThrow()
    expect(() => viemResults(bad as Hex)).toThrow()
  }
})
