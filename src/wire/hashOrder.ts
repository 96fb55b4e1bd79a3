import type { Hex } from 'viem'
import { keccak256 } from './keccak.ts'
import type { Order, OrderStruct } from './order.ts'
import { maxUint256 } from './primitives.ts'

/** ABI of the `Order` struct as a single tuple parameter, in field order. */
export const orderTupleAbi = [
  {
    type: 'tuple',
    components: [
      { name: 'consumer', type: 'address' },
      { name: 'adapter', type: 'address' },
      { name: 'params', type: 'bytes' },
      { name: 'payToken', type: 'address' },
      { name: 'payee', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'feeBps', type: 'uint16' },
    ],
  },
] as const

/**
 * `keccak256(abi.encode(order))`, byte for byte the Broker's `hashOrder`. The struct
 * is dynamic (it holds `bytes`), so the encoding starts with the 0x20 offset word.
 * The result is the EIP-3009 nonce the consumer signs.
 *
 * @example
 * import { hashOrder } from 'order-relay/wire'
 * const orderHash = hashOrder(order) // 0x…32 bytes
 */
export function hashOrder(order: Order | OrderStruct): Hex {
  return keccak256(encodeOrder(order))
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/
const bytesPattern = /^0x(?:[0-9a-fA-F]{2})*$/
const word = (hex: string) => hex.padStart(64, '0')

/**
 * `abi.encode(order)` for the one fixed `Order` layout, written out directly: the
 * same bytes as viem's `encodeAbiParameters(orderTupleAbi, [order])` at a tenth of
 * the cost (every `POST /broker` hashes its order before the fee floor is checked).
 * Throws on a value the ABI cannot carry, as viem does.
 */
export function encodeOrder(order: Order | OrderStruct): Hex {
  const { consumer, adapter, payToken, payee, params, feeBps } = order
  for (const address of [consumer, adapter, payToken, payee]) {
    if (!addressPattern.test(address)) throw new Error('hashOrder: an order address is not 0x followed by 40 hex digits')
  }
  if (!bytesPattern.test(params)) throw new Error('hashOrder: order.params is not 0x followed by an even number of hex digits')
  const amount = BigInt(order.amount)
  const nonce = BigInt(order.nonce)
  if (amount < 0n || amount > maxUint256 || nonce < 0n || nonce > maxUint256) throw new Error('hashOrder: order.amount and order.nonce must fit in uint256')
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 65_535) throw new Error('hashOrder: order.feeBps must fit in uint16')
  const data = params.slice(2).toLowerCase()
  return `0x${word('20')}${word(consumer.slice(2).toLowerCase())}${word(adapter.slice(2).toLowerCase())}${word('100')}${word(
    payToken.slice(2).toLowerCase(),
  )}${word(payee.slice(2).toLowerCase())}${word(amount.toString(16))}${word(nonce.toString(16))}${word(feeBps.toString(16))}${word(
    (data.length / 2).toString(16),
  )}${data.padEnd(Math.ceil(data.length / 64) * 64, '0')}`
}
