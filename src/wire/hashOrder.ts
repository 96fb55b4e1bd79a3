import type { Hex } from 'viem'
import { bytesToHex, writeHex } from './hexBytes.ts'
import { keccak256Bytes } from './keccak.ts'
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

// The bytes `hashOrder` hashes, reused from one call to the next (it never yields, so
// no two calls share them). With a freshly made array each call, `hashOrder` took about
// a fifth longer (0.8–1 µs, alternating in one process): hash-wasm reads its input's
// `.buffer`, and JavaScriptCore gives a new typed array a buffer of its own on that
// read. Every `POST /broker` hashes its order before its fee floor is checked.
let hashInput = new Uint8Array(1024)

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
  const size = encodedSize(order)
  if (hashInput.length < size) hashInput = new Uint8Array(size)
  const bytes = hashInput.subarray(0, size)
  bytes.fill(0)
  writeOrder(bytes, order)
  return keccak256Bytes(bytes)
}

/** `abi.encode(order)` as hex: the same bytes as viem's `encodeAbiParameters(orderTupleAbi, [order])`. */
export function encodeOrder(order: Order | OrderStruct): Hex {
  return bytesToHex(encodeOrderBytes(order))
}

const word = 32

/**
 * `abi.encode(order)` for the one fixed `Order` layout, written straight into bytes:
 * the same bytes as viem's `encodeAbiParameters(orderTupleAbi, [order])` at a small
 * fraction of the cost (every `POST /broker` hashes its order before the fee floor
 * is checked). Throws on a value the ABI cannot carry, as viem does.
 */
export function encodeOrderBytes(order: Order | OrderStruct): Uint8Array {
  const bytes = new Uint8Array(encodedSize(order))
  writeOrder(bytes, order)
  return bytes
}

/** Bytes of `abi.encode(order)`: ten words, then `params` padded to whole words. */
function encodedSize({ params }: Order | OrderStruct): number {
  return 10 * word + Math.ceil(paramByteCount(params) / word) * word
}

const paramByteCount = (params: string) => Math.max(0, Math.floor((params.length - 2) / 2))

/** Writes `abi.encode(order)` into `bytes`: zeroed, and exactly `encodedSize(order)` long. */
function writeOrder(bytes: Uint8Array, order: Order | OrderStruct): void {
  const { params, feeBps } = order
  const paramBytes = paramByteCount(params)
  // Words: 0x20 (where the tuple starts), consumer, adapter, 0x100 (where params starts),
  // payToken, payee, amount, nonce, feeBps, then params: its length and its bytes.
  bytes[word - 1] = 0x20
  const addresses = [order.consumer, order.adapter, order.payToken, order.payee]
  const addressAt = [1, 2, 4, 5]
  for (let i = 0; i < 4; i++) {
    if (!writeAddress(bytes, addressAt[i]! * word, addresses[i]!)) throw new Error('hashOrder: an order address is not 0x followed by 40 hex digits')
  }
  if (!params.startsWith('0x') || !writeHex(bytes, 10 * word, paramBytes, params, 2)) {
    throw new Error('hashOrder: order.params is not 0x followed by an even number of hex digits')
  }
  const amount = BigInt(order.amount)
  const nonce = BigInt(order.nonce)
  if (amount < 0n || amount > maxUint256 || nonce < 0n || nonce > maxUint256) throw new Error('hashOrder: order.amount and order.nonce must fit in uint256')
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > 65_535) throw new Error('hashOrder: order.feeBps must fit in uint16')
  bytes[4 * word - 2] = 0x01
  writeUint256(bytes, 6 * word, amount)
  writeUint256(bytes, 7 * word, nonce)
  bytes[9 * word - 2] = feeBps >> 8
  bytes[9 * word - 1] = feeBps & 0xff
  // The length word of `params` (a byte count, well under 2^53).
  for (let at = 10 * word - 1, left = paramBytes; left > 0; at--, left = Math.floor(left / 256)) bytes[at] = left % 256
}

/** `0x` + 40 hex digits, right-aligned in the word at `at`; false for anything else. */
function writeAddress(bytes: Uint8Array, at: number, address: string): boolean {
  return address.length === 42 && address.startsWith('0x') && writeHex(bytes, at, word, address, 2)
}

/** A uint256 already range-checked, big-endian in the word at `at`. */
export function writeUint256(bytes: Uint8Array, at: number, value: bigint): void {
  const hex = value.toString(16)
  writeHex(bytes, at, word, hex.length % 2 ? `0${hex}` : hex, 0)
}
