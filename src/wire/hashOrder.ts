import { encodeAbiParameters, keccak256, type Hex } from 'viem'
import { type Order, type OrderStruct, toOrderStruct } from './order.ts'

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
  const struct = typeof order.amount === 'string' ? toOrderStruct(order as Order) : (order as OrderStruct)
  return keccak256(encodeAbiParameters(orderTupleAbi, [struct]))
}
