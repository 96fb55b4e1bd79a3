// The payment rule (docs/decisions.md, docs/contracts.md): every adapter refuses an order
// that did not pay exactly the price its owner set, to that payee, in that token, with
// WrongPayment(token, payee, amount) naming what came; the specification's own reverts
// come first. Sent straight to the Broker, never through the relayer.
import { describe, expect, test } from 'bun:test'
import { type Address, encodeDeployData, getAddress, type Hex, keccak256, slice, stringToHex, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  allocationAdapterAbi,
  attestedAdapterAbi,
  expressLaneAdapterAbi,
  mockEIP3009TokenAbi,
  mockEIP3009TokenBytecode,
  mockExpressLaneAuctionAbi,
} from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, devnetPrice, usdc } from '../../src/devnet/index.ts'
import type { Order, RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { attestationParams, brokerCall, callOf, chainNow, contractsOf, expectRevert, orderWatch, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

const contracts = () => contractsOf(devnet)
const payee = devnetAccounts.payee.address
const spare = devnetAccounts.spare.address

async function expectOrderRevert(request: RelayRequest, expected: string) {
  return expectRevert(devnet, { call: brokerCall(devnet, request), expected, watch: orderWatch(devnet, request) })
}

/** A second EIP-3009 token the consumer holds, so a wrong-token order pays and reaches the adapter. */
async function otherToken(): Promise<Address> {
  const { contractAddress } = await sendOk(devnet, 'deployer', {
    data: encodeDeployData({ abi: mockEIP3009TokenAbi, bytecode: mockEIP3009TokenBytecode, args: ['Other USD', '1'] }),
  })
  const token = getAddress(contractAddress!)
  await sendOk(devnet, 'deployer', callOf(token, mockEIP3009TokenAbi, 'mint', [devnetAccounts.consumer.address, 1000n * usdc]))
  return token
}

const wrongOrders: [string, () => Promise<Partial<Order>>, (order: Order) => string][] = [
  ['the wrong payee (the consumer paying itself)', async () => ({ payee: devnetAccounts.consumer.address }), (o) => `WrongPayment(token=${o.payToken}, payee=${o.payee}, amount=${o.amount})`],
  ['too little (price - 1)', async () => ({ amount: (devnetPrice - 1n).toString() }), (o) => `WrongPayment(token=${o.payToken}, payee=${o.payee}, amount=${devnetPrice - 1n})`],
  ['too much (price + 1)', async () => ({ amount: (devnetPrice + 1n).toString() }), (o) => `WrongPayment(token=${o.payToken}, payee=${o.payee}, amount=${devnetPrice + 1n})`],
  ['the wrong token', async () => ({ payToken: await otherToken() }), (o) => `WrongPayment(token=${o.payToken}, payee=${o.payee}, amount=${o.amount})`],
]

describe('WrongPayment(address token, address payee, uint256 amount)', () => {
  for (const [name, override, expected] of wrongOrders) {
    test(`allocation: ${name}`, async () => {
      const order = allocationOrder(devnet, await override())
      await expectOrderRevert(await signed(devnet, order), expected(order))
    })
    test(`express lane: ${name}`, async () => {
      const order = allocationOrder(devnet, { adapter: contracts().expressLaneAdapter, params: '0x', ...(await override()) })
      await expectOrderRevert(await signed(devnet, order), expected(order))
    })
    test(`attested claim: ${name}`, async () => {
      const claim = keccak256(stringToHex(`claim ${name}`))
      const params = await attestationParams(devnet, { consumer: devnetAccounts.consumer.address, claim, notAfter: (await chainNow(devnet)) + 3600n })
      const order = allocationOrder(devnet, { adapter: contracts().attestedAdapter, params, ...(await override()) })
      await expectOrderRevert(await signed(devnet, order), expected(order))
    })
  }

  test('a vault priced by its owner: the new price settles, the devnet default no longer does', async () => {
    const { allocationAdapter, payToken } = contracts()
    await sendOk(devnet, 'deployer', callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', [1n, payToken, spare, 3n * usdc]))
    expect(await devnet.publicClient.readContract({ address: allocationAdapter, abi: allocationAdapterAbi, functionName: 'vaultPayment', args: [1n] })).toEqual({
      token: payToken,
      payee: spare,
      price: 3n * usdc,
    })
    const old = allocationOrder(devnet)
    await expectOrderRevert(await signed(devnet, old), `WrongPayment(token=${payToken}, payee=${payee}, amount=${devnetPrice})`)
    await sendOk(devnet, 'relayer', brokerCall(devnet, await signed(devnet, allocationOrder(devnet, { payee: spare, amount: (3n * usdc).toString() }))))
    // Unset again: the vault falls back to the adapter's default payment.
    await sendOk(devnet, 'deployer', callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', [1n, zeroAddress, zeroAddress, 0n]))
    await sendOk(devnet, 'relayer', brokerCall(devnet, await signed(devnet, allocationOrder(devnet))))
  })

  test('an adapter without any payment set refuses every order', async () => {
    const { expressLaneAdapter } = contracts()
    await sendOk(devnet, 'deployer', callOf(expressLaneAdapter, expressLaneAdapterAbi, 'setDefaultPayment', [zeroAddress, zeroAddress, 0n]))
    const order = allocationOrder(devnet, { adapter: expressLaneAdapter, params: '0x' })
    await expectOrderRevert(await signed(devnet, order), `WrongPayment(token=${order.payToken}, payee=${order.payee}, amount=${order.amount})`)
  })
})

describe('the specification\'s reverts come before WrongPayment', () => {
  const unpaid = { payee: devnetAccounts.consumer.address, amount: '1' }

  test('AllocationSoldOut: an unconfigured vault, paid wrongly', async () => {
    await expectOrderRevert(await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n), ...unpaid })), 'AllocationSoldOut(vaultId=7)')
  })

  test('AllocationSoldOut: a sold-out vault, paid wrongly', async () => {
    await sendOk(devnet, 'deployer', callOf(contracts().allocationAdapter, allocationAdapterAbi, 'configureVault', [4n, 0n]))
    await expectOrderRevert(await signed(devnet, allocationOrder(devnet, { params: vaultParams(4n), ...unpaid })), 'AllocationSoldOut(vaultId=4)')
  })

  test('NoLaneControl: the lane not controlled, paid wrongly', async () => {
    await sendOk(devnet, 'deployer', callOf(contracts().expressLaneAuction, mockExpressLaneAuctionAbi, 'setCurrentRound', [2n]))
    const order = allocationOrder(devnet, { adapter: contracts().expressLaneAdapter, params: '0x', ...unpaid })
    await expectOrderRevert(await signed(devnet, order), 'NoLaneControl()')
  })

  test('BadAttestation: attested by someone else, paid wrongly', async () => {
    const claim: Hex = keccak256(stringToHex('seat 1A'))
    const params = await attestationParams(devnet, {
      consumer: devnetAccounts.consumer.address,
      claim,
      notAfter: (await chainNow(devnet)) + 3600n,
      signer: privateKeyToAccount(devnetAccounts.spare.privateKey),
    })
    await expectOrderRevert(await signed(devnet, allocationOrder(devnet, { adapter: contracts().attestedAdapter, params, ...unpaid })), 'BadAttestation()')
  })
})

/** The allocation adapter's vault-1 and default payments, which a refused admin call must leave as they were. */
const paymentWatch = () => ({
  token: contracts().payToken,
  holders: [] as Address[],
  extra: [
    () => devnet.publicClient.readContract({ address: contracts().allocationAdapter, abi: allocationAdapterAbi, functionName: 'vaultPayment', args: [1n] }),
    () => devnet.publicClient.readContract({ address: contracts().allocationAdapter, abi: allocationAdapterAbi, functionName: 'defaultPayment' }),
  ],
})

describe('who sets a price', () => {
  test('only the adapter owner: anyone else gets OwnableUnauthorizedAccount', async () => {
    const { allocationAdapter, attestedAdapter, payToken } = contracts()
    await expectRevert(devnet, {
      from: 'consumer',
      call: callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', [1n, payToken, devnetAccounts.consumer.address, 1n]),
      expected: `OwnableUnauthorizedAccount(account=${devnetAccounts.consumer.address})`,
      watch: paymentWatch(),
    })
    await expectRevert(devnet, {
      from: 'consumer',
      call: callOf(attestedAdapter, attestedAdapterAbi, 'setClaimPayment', [slice(keccak256('0x01'), 0, 4), payToken, devnetAccounts.consumer.address, 1n]),
      expected: `OwnableUnauthorizedAccount(account=${devnetAccounts.consumer.address})`,
      watch: paymentWatch(),
    })
  })

  test('ZeroAddress(): a price with a token but no payee, or a payee but no token', async () => {
    const { allocationAdapter, payToken } = contracts()
    for (const args of [[1n, payToken, zeroAddress, 1n], [1n, zeroAddress, payee, 1n]] as const) {
      await expectRevert(devnet, { from: 'deployer', call: callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', args), expected: 'ZeroAddress()', watch: paymentWatch() })
    }
  })
})
