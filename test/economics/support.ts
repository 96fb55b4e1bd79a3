import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { allocationAdapterAbi, allocationAdapterBytecode, mockEIP3009TokenAbi, mockEIP3009TokenBytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts } from '../../src/devnet/index.ts'
import type { Order } from '../../src/wire/index.ts'
import { freshNonce, signed, vaultParams } from '../helpers/orders.ts'
import { deploy, write } from '../relayer/support/chain.ts'

/**
 * What an attacker brings: an EIP-3009 token of its own, worth nothing,
 * and an AllocationAdapter of its own whose vault 1 costs `price` of `payToken` paid to
 * the attacker (`spare`), deployed and configured from the attacker's key.
 */
export async function attackerAdapter(devnet: Devnet, options: { payToken?: Address; price?: bigint } = {}) {
  const payToken = options.payToken ?? (await deploy(devnet, mockEIP3009TokenAbi, mockEIP3009TokenBytecode, ['Worthless', '1'], 'spare'))
  const adapter = await deploy(devnet, allocationAdapterAbi, allocationAdapterBytecode, [devnet.manifest.contracts.broker, devnetAccounts.spare.address], 'spare')
  await write(devnet, 'spare', { address: adapter, abi: allocationAdapterAbi, functionName: 'configureVault', args: [1n, 1_000_000n] })
  await write(devnet, 'spare', { address: adapter, abi: allocationAdapterAbi, functionName: 'setVaultPayment', args: [1n, payToken, devnetAccounts.spare.address, options.price ?? 1n] })
  return { payToken, adapter }
}

/** A fresh consumer holding `amount` of `token` (minted by `minter`, the token's owner). */
export async function fundedConsumer(devnet: Devnet, token: Address, amount: bigint, minter: 'deployer' | 'spare' = 'deployer') {
  const account = privateKeyToAccount(generatePrivateKey())
  await write(devnet, minter, { address: token, abi: mockEIP3009TokenAbi, functionName: 'mint', args: [account.address, amount] })
  return account
}

/** A signed allocation order for vault 1 of `adapter`, paid in `payToken` to the attacker. */
export async function attackerOrder(devnet: Devnet, consumer: ReturnType<typeof privateKeyToAccount>, fields: { adapter: Address; payToken: Address; amount: bigint; feeBps: number }) {
  const order: Order = {
    consumer: consumer.address,
    adapter: fields.adapter,
    params: vaultParams(1n),
    payToken: fields.payToken,
    payee: devnetAccounts.spare.address,
    amount: fields.amount.toString(),
    nonce: freshNonce().toString(),
    feeBps: fields.feeBps,
  }
  return signed(devnet, order, { account: consumer })
}

/** The gas key's `latest` and `pending` nonces (equal and unchanged: it sent nothing). */
export async function nonces(devnet: Devnet, key: Address): Promise<{ latest: number; pending: number }> {
  const [latest, pending] = await Promise.all([
    devnet.publicClient.getTransactionCount({ address: key, blockTag: 'latest' }),
    devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' }),
  ])
  return { latest, pending }
}

export type { Hex }
