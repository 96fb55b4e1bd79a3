import { type Address, encodeAbiParameters, encodeFunctionData, type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { brokerAbi } from '../../../src/chain/index.ts'
import { readTokenDomain, signOrder } from '../../../src/client/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../../src/devnet/index.ts'
import { type RelayRequest, toOrderStruct } from '../../../src/wire/index.ts'

/**
 * `count` allocation orders for `vaultId`, signed beforehand by the devnet consumer
 * so signing is never part of a measurement. The devnet deploys to the same
 * addresses every time, so the orders fit every fresh devnet of the same chain id.
 */
export async function presignOrders(devnet: Devnet, count: number, options: { vaultId?: bigint; feeBps?: number; label?: string } = {}): Promise<RelayRequest[]> {
  const account = privateKeyToAccount(devnetAccounts.consumer.privateKey)
  const { contracts } = devnet.manifest
  const domain = await readTokenDomain(devnet.publicClient, contracts.payToken)
  const params = encodeAbiParameters([{ type: 'uint256' }], [options.vaultId ?? 1n])
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 24 * 3600)
  // A nonce base unique to this run, so two runs never sign the same order.
  const base = BigInt(keccak256(stringToHex(`${options.label ?? 'bench'} ${Date.now()} ${Math.random()}`))) >> 64n
  const requests: RelayRequest[] = []
  for (let i = 0; i < count; i++) {
    const order = {
      consumer: account.address,
      adapter: contracts.allocationAdapter,
      params,
      payToken: contracts.payToken,
      payee: devnetAccounts.payee.address,
      amount: (10n * usdc).toString(),
      nonce: (base + BigInt(i)).toString(),
      feeBps: options.feeBps ?? 50,
    }
    requests.push(await signOrder({ account, order, broker: contracts.broker as Address, chainId: devnet.chainId, domain, validBefore }))
  }
  return requests
}

/** The Broker calldata for a request, the order verbatim (what a relayer broadcasts). */
export function brokerCalldata(request: RelayRequest): Hex {
  return encodeFunctionData({
    abi: brokerAbi,
    functionName: 'broker',
    args: [toOrderStruct(request.order), BigInt(request.validAfter), BigInt(request.validBefore), request.signature.v, request.signature.r as Hex, request.signature.s as Hex],
  })
}
