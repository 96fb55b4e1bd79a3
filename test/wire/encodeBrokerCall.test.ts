// The broker() calldata, written out for its one fixed layout, gives viem's
// encodeFunctionData bytes exactly for random requests, and refuses what the ABI
// cannot carry; its cost shows in the settlement benchmarks, not in a test.
import { expect, test } from 'bun:test'
import { encodeFunctionData, type Hex } from 'viem'
import { brokerAbi, encodeBrokerCall } from '../../src/chain/index.ts'
import { type RelayRequest, toOrderStruct } from '../../src/wire/index.ts'
import { createRandom } from '../helpers/random.ts'
import { anyCase, maxUint256, randomOrder, randomUint256 } from '../helpers/randomOrder.ts'

const rng = createRandom(0xb20c4e)

function randomRequest(): RelayRequest {
  return {
    order: randomOrder(rng),
    signature: { v: rng.pick([0, 1, 27, 28, 255, rng.int(0, 255)]), r: `0x${anyCase(rng, rng.hex(32))}`, s: `0x${rng.hex(32)}` },
    validAfter: randomUint256(rng),
    validBefore: randomUint256(rng),
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
