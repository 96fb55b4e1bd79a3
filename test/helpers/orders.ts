import { type Address, encodeAbiParameters, type Hex, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { signOrder } from '../../src/client/index.ts'
import type { Devnet } from '../../src/devnet/index.ts'
import { devnetAccounts, usdc } from '../../src/devnet/index.ts'
import type { Order, RelayRequest } from '../../src/wire/index.ts'

let salt = BigInt(Date.now()) * 1000n

/** A fresh order nonce, unique within the test run. */
export const freshNonce = () => ++salt

/** An allocation order for vault 1 from the devnet consumer, with overrides. */
export function allocationOrder(devnet: Devnet, overrides: Partial<Order> = {}): Order {
  return {
    consumer: devnetAccounts.consumer.address,
    adapter: devnet.manifest.contracts.allocationAdapter,
    params: encodeAbiParameters([{ type: 'uint256' }], [1n]),
    payToken: devnet.manifest.contracts.payToken,
    payee: devnetAccounts.payee.address,
    amount: (10n * usdc).toString(),
    nonce: freshNonce().toString(),
    feeBps: 50,
    ...overrides,
  }
}

export const consumerAccount: LocalAccount = privateKeyToAccount(devnetAccounts.consumer.privateKey)

/** Signs an order as the devnet consumer (or `account`) for the devnet's Broker. */
export async function signed(
  devnet: Devnet,
  order: Order,
  options: { account?: LocalAccount; validAfter?: bigint; validBefore?: bigint; broker?: Address } = {},
): Promise<RelayRequest> {
  return signOrder({
    account: options.account ?? consumerAccount,
    order,
    broker: options.broker ?? (devnet.manifest.contracts.broker as Address),
    chainId: devnet.chainId,
    client: devnet.publicClient,
    validAfter: options.validAfter,
    validBefore: options.validBefore,
  })
}

/** vaultId params for the allocation adapter. */
export const vaultParams = (vaultId: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [vaultId])
