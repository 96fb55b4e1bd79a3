import { type Address, getAddress, type Hex, isAddress, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { signOrder } from '../client/index.ts'
import type { DevnetRole } from '../devnet/accounts.ts'
import type { Order, RelayRequest, RelaySuccess } from '../wire/index.ts'
import type { TestDevnet } from './startDevnet.ts'

export type CreateOrderParameters = {
  /** Your adapter's name (`devnet.adapters`), a manifest contract (`allocationAdapter`…), or an address. */
  adapter: string
  /** The adapter's parameters, ABI-encoded (default `0x`). */
  params?: Hex
  /** What the order pays, in base units of `payToken`. */
  amount: bigint | number | string
  /** Who is paid (default the devnet's payee account). */
  payee?: Address
  /** The EIP-3009 token paid in (default the devnet's pay token). */
  payToken?: Address
  /** The relayer's fee in basis points of `amount` (default 50). */
  feeBps?: number
  /** Makes the order unique (default a fresh number). */
  nonce?: bigint
  /** Who signs and pays (default the devnet's consumer account). */
  consumer?: Address
}

let salt = BigInt(Date.now()) * 1_000_000n

/** An address from a name the devnet knows, or the address itself. */
function adapterAddress(devnet: TestDevnet, adapter: string): Address {
  if (isAddress(adapter, { strict: false })) return getAddress(adapter)
  const own = devnet.adapters[adapter]
  if (own) return own
  const contract = (devnet.manifest.contracts as Record<string, Address>)[adapter]
  if (contract) return contract
  const known = [...Object.keys(devnet.adapters), ...Object.keys(devnet.manifest.contracts)].join(', ')
  throw new Error(`no adapter named ${JSON.stringify(adapter)} on this devnet (known: ${known}); pass a name or an address`)
}

/**
 * An order for the devnet, with its defaults filled in (the devnet's consumer, pay
 * token and payee, 50 bps, a fresh nonce): what `signTestOrder` signs.
 *
 * @example
 * import { createOrder } from 'order-relay/testing'
 * import { encodeAbiParameters } from 'viem'
 *
 * const order = createOrder(devnet, { adapter: 'TicketAdapter', params: encodeAbiParameters([{ type: 'uint256' }], [0n]), amount: 10_000_000n })
 */
export function createOrder(devnet: TestDevnet, parameters: CreateOrderParameters): Order {
  return {
    consumer: parameters.consumer ?? devnet.accounts.consumer.address,
    adapter: adapterAddress(devnet, parameters.adapter),
    params: parameters.params ?? '0x',
    payToken: parameters.payToken ?? devnet.manifest.contracts.payToken,
    payee: parameters.payee ?? devnet.accounts.payee.address,
    amount: BigInt(parameters.amount).toString(),
    nonce: (parameters.nonce ?? ++salt).toString(),
    feeBps: parameters.feeBps ?? 50,
  }
}

export type SignTestOrderOptions = {
  /**
   * Who signs: a devnet role (default `consumer`) or any viem local account. A signer
   * other than `order.consumer` signs the consumer's authorization with its own key, as
   * a wrong-signer test wants: the token answers `invalid signature`.
   */
  signer?: DevnetRole | LocalAccount
  /** Unix seconds; default 0. */
  validAfter?: bigint
  /** Unix seconds; default an hour from now. */
  validBefore?: bigint
}

/**
 * Signs an order as the consumer would (EIP-3009 `ReceiveWithAuthorization` to the
 * devnet's Broker, the orderHash as its nonce, the token's domain read from the chain)
 * and returns the `POST /broker` body.
 *
 * @example
 * import { createOrder, signTestOrder } from 'order-relay/testing'
 *
 * const request = await signTestOrder(devnet, createOrder(devnet, { adapter: 'TicketAdapter', params, amount: 10_000_000n }))
 * const success = await devnet.relayer.broker(request)
 */
export function signTestOrder(devnet: TestDevnet, order: Order, options: SignTestOrderOptions = {}): Promise<RelayRequest> {
  const signer = options.signer ?? 'consumer'
  const own = typeof signer === 'string' ? privateKeyToAccount(devnet.accounts[signer].privateKey) : signer
  const account = own.address.toLowerCase() === order.consumer.toLowerCase() ? own : { ...own, address: order.consumer as Address }
  return signOrder({
    account,
    order,
    broker: devnet.manifest.contracts.broker,
    chainId: devnet.chainId,
    client: devnet.publicClient,
    validAfter: options.validAfter,
    validBefore: options.validBefore,
  })
}

/**
 * Creates, signs and submits an order through the devnet's relayer (`POST /broker`,
 * the real pipeline) and resolves once it settled.
 *
 * @throws SubmitError with the relayer's code; a revert reads `would revert: SoldOut(sold=2, seats=2)`
 * @example
 * import { sendOrder } from 'order-relay/testing'
 *
 * const { txHash, receipt } = await sendOrder(devnet, { adapter: 'TicketAdapter', params, amount: 10_000_000n })
 * receipt.event // 'TicketIssued'
 */
export async function sendOrder(devnet: TestDevnet, parameters: CreateOrderParameters & SignTestOrderOptions): Promise<RelaySuccess> {
  return devnet.relayer.broker(await signTestOrder(devnet, createOrder(devnet, parameters), parameters))
}
