// The broker() calldata, written out for its one fixed layout, gives viem's
// encodeFunctionData bytes exactly for random requests, and refuses what the ABI
// cannot carry; its cost shows in the settlement benchmarks, not in a test.
import { expect, test } from 'bun:test'
import { encodeFunctionData, type Hex } from 'viem'
import { brokerAbi, encodeBrokerCall } from '../../src/chain/index.ts'
import { type Order, type RelayRequest, toOrderStruct } from '../../src/wire/index.ts'
import { createRandom } from '../helpers/random.ts'

const rng = createRandom(0xb20c4e)
const maxUint256 = 2n ** 256n - 1n
const anyCase = (hex: string) => hex.replace(/[a-f]/g, (c) => (rng.chance(0.5) ? c.toUpperCase() : c))
const integer = () => rng.pick([0n, 1n, maxUint256, maxUint256 - 1n, rng.uint256()]).toString()

function randomRequest(): RelayRequest {
  const order: Order = {
    consumer: `0x${anyCase(rng.hex(20))}`,
    adapter: `0x${rng.hex(20)}`,
    params: `0x${anyCase(rng.hex(rng.pick([0, 1, 31, 32, 33, 64, 65, rng.int(0, 300)])))}`,
    payToken: `0x${rng.hex(20).toUpperCase()}`,
    payee: `0x${rng.hex(20)}`,
    amount: integer(),
    nonce: integer(),
    feeBps: rng.pick([0, 1, 10_000, 65_535, rng.int(0, 65_535)]),
  }
  return {
    order,
    signature: { v: rng.pick([0, 1, 27, 28, 255, rng.int(0, 255)]), r: `0x${anyCase(rng.hex(32))}`, s: `0x${rng.hex(32)}` },
    validAfter: integer(),
    validBefore: integer(),
    chainId: 421614,
  }
}

const viemCall = (request: RelayRequest) =>
  encodeFunctionData({
    abi: brokerAbi,
    functionName: 'broker',
    args: [toOrderStruct(request.order), BigInt(request.validAfter), BigInt(request.validBefore), request.signature.v, request.signature.r as Hex, request.signature.s as Hex],
  })

test('2,000 random requests: the same calldata as viem encodeFunctionData', () => {
  for (let i = 0; i < 2_000; i++) {
    const request = randomRequest()
    expect(encodeBrokerCall(request)).toBe(viemCall(request).toLowerCase() as Hex)
  }
})

test('values the ABI cannot carry throw, as viem does (and an r or s that is not hex, which viem lets through)', () => {
  const good = randomRequest()
  const bad: RelayRequest[] = [
    { ...good, validAfter: (maxUint256 + 1n).toString() },
    { ...good, validBefore: '-1' },
    { ...good, signature: { ...good.signature, v: 256 } },
    { ...good, signature: { ...good.signature, v: 1.5 } },
    { ...good, signature: { ...good.signature, r: '0x1234' } },
    { ...good, order: { ...good.order, amount: (maxUint256 + 1n).toString() } },
    { ...good, order: { ...good.order, payee: '0x1234' } },
  ]
  for (const request of bad) {
    expect(() => encodeBrokerCall(request)).toThrow()
    expect(() => viemCall(request)).toThrow()
  }
  // viem copies a bytes32 of non-hex digits into its output unchecked; this encoder refuses it.
  const notHex = { ...good, signature: { ...good.signature, s: `0x${'g'.repeat(64)}` } }
  expect(() => encodeBrokerCall(notHex)).toThrow('signature.r and signature.s must be 0x followed by 64 hex digits')
})
