import { type Address, decodeAbiParameters, getAddress, type Hex, parseAbi } from 'viem'
import type { Order } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'

/** The payment views every adapter of this project offers (contracts/src/adapters): one of them names the price. */
const paymentViews = parseAbi([
  'struct Payment { address token; address payee; uint256 price; }',
  'function vaultPayment(uint256 vaultId) view returns (Payment)',
  'function claimPayment(bytes4 kind) view returns (Payment)',
  'function defaultPayment() view returns (address token, address payee, uint256 price)',
])

export type ExpectedPayment = { token: Address; payee: Address; price: bigint }

/**
 * What the order's adapter asks to be paid, read from its own views (the allocation
 * adapter's `vaultPayment(vaultId)`, the attested adapter's `claimPayment(kind)`, else
 * `defaultPayment()`), for a `WrongPayment` answer that says what to pay instead of
 * repeating what was wrong. Undefined when the adapter has none of these views, none
 * is set, or the RPC fails: the message then says to ask the adapter's owner.
 */
export async function expectedPayment(context: Pick<RelayerContext, 'client'>, order: Pick<Order, 'adapter' | 'params'>): Promise<ExpectedPayment | undefined> {
  const address = order.adapter as Address
  const params = order.params as Hex
  const reads: (() => Promise<ExpectedPayment>)[] = []
  const vaultId = decodeOr(() => decodeAbiParameters([{ type: 'uint256' }], params)[0])
  if (vaultId !== undefined) reads.push(async () => context.client.readContract({ address, abi: paymentViews, functionName: 'vaultPayment', args: [vaultId] }))
  const claim = decodeOr(() => decodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], params)[0])
  if (claim !== undefined) reads.push(async () => context.client.readContract({ address, abi: paymentViews, functionName: 'claimPayment', args: [claim.slice(0, 10) as Hex] }))
  reads.push(async () => {
    const [token, payee, price] = await context.client.readContract({ address, abi: paymentViews, functionName: 'defaultPayment' })
    return { token, payee, price }
  })
  for (const read of reads) {
    try {
      const payment = await read()
      if (BigInt(payment.token) !== 0n) return { token: getAddress(payment.token), payee: getAddress(payment.payee), price: payment.price }
    } catch {}
  }
  return undefined
}

const decodeOr = <T>(decode: () => T): T | undefined => {
  try {
    return decode()
  } catch {
    return undefined
  }
}

/** The sentence a `WrongPayment` answer ends with: what the adapter asks, or whom to ask. */
export function describeExpectedPayment(payment: ExpectedPayment | undefined): string {
  if (!payment) return 'the adapter does not say what it asks (no payment view answers); ask its owner for the payToken, payee and amount'
  return `the adapter asks for amount=${payment.price} of payToken=${payment.token} paid to payee=${payment.payee}`
}
