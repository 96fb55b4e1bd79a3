// The Order encoding behind hashOrder, written out for its one fixed layout, gives
// viem's encodeAbiParameters bytes exactly for random orders (any-case addresses,
// params of every length, extreme integers) and refuses what the ABI cannot carry; its
// cost is measured by the rejections benchmark in scripts/bench, not in a test.
import { expect, test } from 'bun:test'
import { encodeAbiParameters, type Hex, keccak256 } from 'viem'
import { encodeOrder, hashOrder, type Order, orderTupleAbi, toOrderStruct } from '../../src/wire/index.ts'
import { createRandom } from '../helpers/random.ts'
import { maxUint256, randomOrder as randomOrderOf } from '../helpers/randomOrder.ts'

const rng = createRandom(0xe2c0de)
const randomOrder = () => randomOrderOf(rng)

const viemEncoding = (order: Order) => encodeAbiParameters(orderTupleAbi, [toOrderStruct(order)])

test('2,000 random orders: the same bytes as viem, the same hash', () => {
  // viem copies params in the case given; the bytes (and so the hash) are the same.
  for (let i = 0; i < 2_000; i++) {
    const order = randomOrder()
    expect(encodeOrder(order)).toBe(viemEncoding(order).toLowerCase() as Hex)
    expect(encodeOrder(toOrderStruct(order))).toBe(viemEncoding(order).toLowerCase() as Hex)
    expect(hashOrder(order)).toBe(keccak256(viemEncoding(order)))
  }
})

test('values the ABI cannot carry throw, as viem does (and params that are not 0x-prefixed, even-length hex, which viem lets through)', () => {
  const good = randomOrder()
  const bad: Partial<Record<keyof Order, unknown>>[] = [
    { consumer: '0x1234' },
    { payee: `0x${'g'.repeat(40)}` },
    { amount: (maxUint256 + 1n).toString() },
    { nonce: '-1' },
    { feeBps: 65_536 },
    { feeBps: -1 },
    { feeBps: 1.5 },
  ]
  for (const change of bad) {
    const order = { ...good, ...change } as Order
    expect(() => encodeOrder(order)).toThrow()
    expect(() => viemEncoding(order)).toThrow()
  }
  for (const address of [`0X${'1'.repeat(40)}`, `0x${'1'.repeat(39)}é`, `0x${'1'.repeat(41)}`, ` 0x${'1'.repeat(40)}`]) {
    expect(() => encodeOrder({ ...good, payToken: address })).toThrow('an order address is not 0x followed by 40 hex digits')
  }
  for (const params of ['0x123', 'abcd', '0x12é4', '', '0']) {
    expect(() => encodeOrder({ ...good, params })).toThrow('order.params is not 0x followed by an even number of hex digits')
  }
})
