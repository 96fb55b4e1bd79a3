// SPEC.md 7.3, the Broker's own reverts: FeeTooHigh(), ReentrancyGuardReentrantCall(),
// SafeERC20FailedOperation(address). Sent straight to the contracts, never through the relayer.
import { describe, expect, test } from 'bun:test'
import { type Address, encodeDeployData, getAddress } from 'viem'
import {
  falseReturnTokenAbi,
  falseReturnTokenBytecode,
  mockEIP3009TokenAbi,
  reentrantAdapterAbi,
  reentrantAdapterBytecode,
} from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { brokerCall, callOf, contractsOf, expectRevert, orderWatch, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

async function deploy(abi: Parameters<typeof encodeDeployData>[0]['abi'], bytecode: `0x${string}`, args: readonly unknown[]): Promise<Address> {
  const receipt = await sendOk(devnet, 'deployer', { data: encodeDeployData({ abi, bytecode, args } as Parameters<typeof encodeDeployData>[0]) })
  return receipt.contractAddress!
}

describe('FeeTooHigh()', () => {
  for (const feeBps of [10001, 65535]) {
    test(`feeBps ${feeBps} reverts before the authorization is touched`, async () => {
      const request = await signed(devnet, allocationOrder(devnet, { feeBps }))
      const error = await expectRevert(devnet, { call: brokerCall(devnet, request), expected: 'FeeTooHigh()', watch: orderWatch(devnet, request) })
      expect(error).toEqual({ name: 'FeeTooHigh', args: {}, text: 'FeeTooHigh()' })
    })
  }
})

describe('ReentrancyGuardReentrantCall()', () => {
  test('an adapter that re-enters the broker from grant', async () => {
    const reentrant = await deploy(reentrantAdapterAbi, reentrantAdapterBytecode, [contractsOf(devnet).broker])
    const request = await signed(devnet, allocationOrder(devnet, { adapter: reentrant, params: '0x' }))
    const error = await expectRevert(devnet, {
      call: brokerCall(devnet, request),
      expected: 'ReentrancyGuardReentrantCall()',
      watch: orderWatch(devnet, request),
    })
    expect(error.name).toBe('ReentrancyGuardReentrantCall')
  })
})

describe('SafeERC20FailedOperation(address)', () => {
  test('an order paid in a token whose transfer returns false', async () => {
    const token = await deploy(falseReturnTokenAbi, falseReturnTokenBytecode, ['False USD', '1'])
    await sendOk(devnet, 'deployer', callOf(token, mockEIP3009TokenAbi, 'mint', [devnetAccounts.consumer.address, 100n * usdc]))
    const request = await signed(devnet, allocationOrder(devnet, { payToken: token }))
    const watch = orderWatch(devnet, request)
    expect(watch.token).toBe(token)
    const error = await expectRevert(devnet, {
      call: brokerCall(devnet, request),
      expected: `SafeERC20FailedOperation(token=${getAddress(token)})`,
      watch,
    })
    expect(error).toEqual({
      name: 'SafeERC20FailedOperation',
      args: { token: getAddress(token) },
      text: `SafeERC20FailedOperation(token=${getAddress(token)})`,
    })
  })
})
