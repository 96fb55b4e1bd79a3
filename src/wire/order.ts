import * as v from 'valibot'
import { checksumAddress } from './checksumAddress.ts'
import { AddressSchema, HexSchema, integerIn, Uint256StringSchema } from './primitives.ts'

/**
 * The order exactly as the consumer signed it; mirrors the on-chain `Order` struct.
 * `feeBps` is any uint16: a value over 10000 is well-formed here and fails on chain
 * as `FeeTooHigh()`.
 */
export const OrderSchema = v.strictObject(
  {
    consumer: AddressSchema,
    adapter: AddressSchema,
    params: HexSchema,
    payToken: AddressSchema,
    payee: AddressSchema,
    amount: Uint256StringSchema,
    nonce: Uint256StringSchema,
    feeBps: integerIn(0, 65535, 'feeBps is a uint16'),
  }
)

export type Order = v.InferOutput<typeof OrderSchema>

/** The order as the contracts take it: integers as bigint, hex typed. */
export type OrderStruct = {
  consumer: `0x${string}`
  adapter: `0x${string}`
  params: `0x${string}`
  payToken: `0x${string}`
  payee: `0x${string}`
  amount: bigint
  nonce: bigint
  feeBps: number
}

/**
 * Converts a validated wire order to the struct the contracts take. Addresses are
 * checksummed: the wire accepts any case, and viem refuses to ABI-encode a mixed-case
 * address whose checksum is wrong (the encoded bytes are the same for every case).
 */
export function toOrderStruct(order: Order): OrderStruct {
  return {
    consumer: checksumAddress(order.consumer),
    adapter: checksumAddress(order.adapter),
    params: order.params as `0x${string}`,
    payToken: checksumAddress(order.payToken),
    payee: checksumAddress(order.payee),
    amount: BigInt(order.amount),
    nonce: BigInt(order.nonce),
    feeBps: order.feeBps,
  }
}

/** Converts an order struct to its wire form (decimal strings). */
export function toOrderJson(order: OrderStruct): Order {
  return {
    consumer: order.consumer,
    adapter: order.adapter,
    params: order.params,
    payToken: order.payToken,
    payee: order.payee,
    amount: order.amount.toString(),
    nonce: order.nonce.toString(),
    feeBps: order.feeBps,
  }
}
