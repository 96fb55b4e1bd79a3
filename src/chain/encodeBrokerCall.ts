import { type AbiFunction, decodeFunctionData, type Hex, toFunctionSelector } from 'viem'
import { encodeOrderBytes, writeUint256 } from '../wire/hashOrder.ts'
import { bytesToHex, writeHex } from '../wire/hexBytes.ts'
import { maxUint256, type RelayRequest } from '../wire/index.ts'
import { brokerAbi } from './generated/artifacts.ts'

const brokerFunction = brokerAbi.find((item): item is Extract<(typeof brokerAbi)[number], { name: 'broker' }> => item.type === 'function' && item.name === 'broker')!
/** `broker(...)`'s selector, from the ABI once (viem derives it again on every `encodeFunctionData`). */
const selector = toFunctionSelector(brokerFunction as AbiFunction)
const word = 32
// Head: the order's offset, validAfter, validBefore, v, r, s; the order's tuple follows it.
const headWords = 6

/**
 * The calldata of `Broker.broker(order, validAfter, validBefore, v, r, s)` for a
 * signed request, the order passed through verbatim: the same bytes as viem's
 * `encodeFunctionData` over the Broker's ABI, written straight into bytes (viem's
 * encoder took ~70 µs of every order the relayer simulates; this ~15). Throws on a
 * value the ABI cannot carry, as viem does.
 *
 * @example
 * const data = encodeBrokerCall(request)
 * await client.call({ account: relayer, to: broker, data })
 */
export function encodeBrokerCall(request: RelayRequest): Hex {
  // abi.encode(order) is [0x20 (the tuple's offset), the tuple]: the tuple is what follows the head here.
  const order = encodeOrderBytes(request.order)
  const bytes = new Uint8Array(4 + headWords * word + order.length - word)
  writeHex(bytes, 0, 4, selector, 2)
  const head = 4
  bytes[head + word - 1] = headWords * word
  const validAfter = BigInt(request.validAfter)
  const validBefore = BigInt(request.validBefore)
  if (validAfter < 0n || validAfter > maxUint256 || validBefore < 0n || validBefore > maxUint256) throw new Error('encodeBrokerCall: validAfter and validBefore must fit in uint256')
  writeUint256(bytes, head + word, validAfter)
  writeUint256(bytes, head + 2 * word, validBefore)
  const { v, r, s } = request.signature
  if (!Number.isInteger(v) || v < 0 || v > 255) throw new Error('encodeBrokerCall: signature.v must fit in uint8')
  bytes[head + 4 * word - 1] = v
  if (!isWord(r) || !writeHex(bytes, head + 4 * word, word, r, 2) || !isWord(s) || !writeHex(bytes, head + 5 * word, word, s, 2)) {
    throw new Error('encodeBrokerCall: signature.r and signature.s must be 0x followed by 64 hex digits')
  }
  bytes.set(order.subarray(word), head + headWords * word)
  return bytesToHex(bytes)
}

const isWord = (value: string) => value.length === 2 + 2 * word && value.startsWith('0x')

/** What `decodeBrokerCall` reads back: the order's fields the economics need. */
export type BrokerCallOrder = { payToken: Hex; adapter: Hex; amount: bigint; feeBps: number }

/**
 * The order a `broker(...)` calldata carries (viem's decoder: a slow path, for the nonce
 * keeper's re-checks, never per request); undefined when `data` is not such a call.
 */
export function decodeBrokerCall(data: Hex): BrokerCallOrder | undefined {
  try {
    const { functionName, args } = decodeFunctionData({ abi: brokerAbi, data })
    if (functionName !== 'broker') return undefined
    const [order] = args
    return { payToken: order.payToken, adapter: order.adapter, amount: order.amount, feeBps: order.feeBps }
  } catch {
    return undefined
  }
}
