// The EIP-3009 typed data of src/wire against the deployed mock token: the same domain
// separator and type hash, and a signature made with `receiveAuthorizationTypedData`
// (orderHash as the nonce) is accepted by the token itself.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import {
  type Address,
  domainSeparator,
  getAddress,
  keccak256,
  parseEventLogs,
  parseSignature,
  recoverTypedDataAddress,
  stringToHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { readTokenDomain } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts, startDevnet, usdc } from '../../src/devnet/index.ts'
import { hashOrder, receiveAuthorizationTypedData, receiveWithAuthorizationTypes } from '../../src/wire/index.ts'
import { allocationOrder } from '../helpers/orders.ts'

let devnet: Devnet
let token: Address

beforeAll(async () => {
  devnet = await startDevnet()
  token = getAddress(devnet.manifest.contracts.payToken)
})
afterAll(async () => {
  await devnet?.stop()
})

const read = <name extends 'DOMAIN_SEPARATOR' | 'RECEIVE_WITH_AUTHORIZATION_TYPEHASH'>(functionName: name) =>
  devnet.publicClient.readContract({ address: token, abi: mockEIP3009TokenAbi, functionName })

test('the token domain (read through EIP-5267) and the type hash match the contract', async () => {
  const domain = await readTokenDomain(devnet.publicClient, token)
  expect(domain).toEqual({ name: 'USD Coin', version: '2', chainId: devnet.chainId, verifyingContract: token })
  expect(domainSeparator({ domain })).toBe(await read('DOMAIN_SEPARATOR'))

  const fields = receiveWithAuthorizationTypes.ReceiveWithAuthorization.map((field) => `${field.type} ${field.name}`).join(',')
  expect(fields).toBe('address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce')
  expect(keccak256(stringToHex(`ReceiveWithAuthorization(${fields})`))).toBe(await read('RECEIVE_WITH_AUTHORIZATION_TYPEHASH'))
})

test('a receiveAuthorizationTypedData signature with the orderHash as nonce is accepted by the token', async () => {
  const consumer = privateKeyToAccount(devnetAccounts.consumer.privateKey)
  const payee = devnetAccounts.payee.address
  const order = allocationOrder(devnet, { amount: (3n * usdc).toString() })
  const orderHash = hashOrder(order)
  const typedData = receiveAuthorizationTypedData({
    domain: await readTokenDomain(devnet.publicClient, token),
    from: consumer.address,
    // Redeemed by the payee itself here (receive- means only `to` may submit it).
    to: payee,
    value: 3n * usdc,
    validAfter: 0n,
    validBefore: 2n ** 40n,
    nonce: orderHash,
  })
  const signature = await consumer.signTypedData(typedData)
  expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(consumer.address)

  const balance = (holder: Address) => devnet.publicClient.readContract({ address: token, abi: mockEIP3009TokenAbi, functionName: 'balanceOf', args: [holder] })
  const [consumerBefore, payeeBefore] = await Promise.all([balance(consumer.address), balance(payee)])
  const { v, r, s } = parseSignature(signature)
  const hash = await devnet.wallet('payee').writeContract({
    address: token,
    abi: mockEIP3009TokenAbi,
    functionName: 'receiveWithAuthorization',
    args: [consumer.address, payee, 3n * usdc, 0n, 2n ** 40n, orderHash, Number(v), r, s],
  })
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  expect(receipt.status).toBe('success')

  const used = parseEventLogs({ abi: mockEIP3009TokenAbi, logs: receipt.logs, eventName: 'AuthorizationUsed' })
  expect(used.map((log) => log.args)).toEqual([{ authorizer: consumer.address, nonce: orderHash }])
  expect(await balance(consumer.address)).toBe(consumerBefore - 3n * usdc)
  expect(await balance(payee)).toBe(payeeBefore + 3n * usdc)
  expect(
    await devnet.publicClient.readContract({ address: token, abi: mockEIP3009TokenAbi, functionName: 'authorizationState', args: [consumer.address, orderHash] }),
  ).toBe(true)
})
