// The happy path of each adapter, sent straight to the Broker by the relayer account
// (never through the relayer service): the payee gets amount - fee, the relayer
// (msg.sender) gets fee, the adapter emits its event, Brokered carries the right fields.
import { describe, expect, test } from 'bun:test'
import { type Abi, type Address, decodeAbiParameters, getAddress, type Hex, keccak256, parseEventLogs, slice, stringToHex } from 'viem'
import {
  allocationAdapterAbi,
  attestedAdapterAbi,
  brokerAbi,
  expressLaneAdapterAbi,
  mockEIP3009TokenAbi,
} from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../src/devnet/index.ts'
import { hashOrder, type Order, type RelayRequest, toOrderStruct } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { attestationParams, attestationUsed, brokerCall, callOf, chainNow, contractsOf, readState, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

const consumer = devnetAccounts.consumer.address
const payee = devnetAccounts.payee.address
const relayer = devnetAccounts.relayer.address

/**
 * Simulates, then sends `request` to the Broker from the relayer account, and checks
 * the money: consumer -amount, payee +(amount - fee), relayer +fee, broker unchanged,
 * the authorization used. Returns the adapter's receipt bytes and the decoded logs.
 */
async function settle(request: RelayRequest, adapterAbi: Abi, expectedFee: bigint) {
  const { order } = request
  const orderHash = hashOrder(order)
  const broker = contractsOf(devnet).broker
  const watch = {
    token: order.payToken as Address,
    holders: [consumer, payee, relayer, broker],
    authorizations: [{ authorizer: consumer, nonce: orderHash }],
  }
  const before = await readState(devnet, watch)
  expect(before.authorizations).toEqual([false])

  const { result } = await devnet.publicClient.simulateContract({
    account: relayer,
    address: broker,
    abi: brokerAbi,
    functionName: 'broker',
    args: [toOrderStruct(order), BigInt(request.validAfter), BigInt(request.validBefore), request.signature.v, request.signature.r as Hex, request.signature.s as Hex],
  })
  const receipt = await sendOk(devnet, 'relayer', brokerCall(devnet, request))

  const amount = BigInt(order.amount)
  const after = await readState(devnet, watch)
  const [consumerBefore, payeeBefore, relayerBefore, brokerBefore] = before.balances
  expect(after.balances).toEqual([consumerBefore! - amount, payeeBefore! + amount - expectedFee, relayerBefore! + expectedFee, brokerBefore!])
  expect(after.authorizations).toEqual([true])

  const logs = parseEventLogs({ abi: [...brokerAbi, ...adapterAbi, ...mockEIP3009TokenAbi], logs: receipt.logs })
  const brokered = logs.filter((log) => log.eventName === 'Brokered')
  expect(brokered).toHaveLength(1)
  expect(getAddress(brokered[0]!.address)).toBe(broker)
  expect(brokered[0]!.args).toEqual({
    orderHash,
    consumer,
    adapter: getAddress(order.adapter),
    relayer,
    payToken: getAddress(order.payToken),
    payee,
    amount,
    fee: expectedFee,
  })
  // The token's side of the same transaction: the authorization, then consumer → broker → relayer, payee;
  // a zero fee or zero payout is not transferred at all (many tokens revert on a zero transfer).
  const tokenEvents = logs
    .filter((log) => getAddress(log.address) === getAddress(order.payToken))
    .map((log) => ({ eventName: log.eventName, args: log.args }))
  expect(tokenEvents).toEqual([
    { eventName: 'AuthorizationUsed', args: { authorizer: consumer, nonce: orderHash } },
    { eventName: 'Transfer', args: { from: consumer, to: broker, value: amount } },
    ...(expectedFee === 0n ? [] : [{ eventName: 'Transfer', args: { from: broker, to: relayer, value: expectedFee } }]),
    ...(amount === expectedFee ? [] : [{ eventName: 'Transfer', args: { from: broker, to: payee, value: amount - expectedFee } }]),
  ])
  const adapterEvents = logs.filter((log) => getAddress(log.address) === getAddress(order.adapter))
  expect(logs).toHaveLength(tokenEvents.length + adapterEvents.length + 1)
  return { result, adapterEvents, orderHash }
}

describe('allocation adapter', () => {
  const feeCases: [number, bigint, bigint][] = [
    // feeBps, amount, fee = amount * feeBps / 10000 rounded down
    [50, 10_000_001n, 50_000n],
    [0, 10n * usdc, 0n],
    [10000, 10n * usdc, 10n * usdc],
    [1, 9_999n, 0n],
    [333, 1_234_567n, 41_111n],
  ]
  for (const [feeBps, amount, fee] of feeCases) {
    test(`feeBps ${feeBps} on ${amount}: relayer gets ${fee}, payee ${amount - fee}, AllocationGranted slot 0`, async () => {
      // The adapter owner prices vault 1 at `amount` (the devnet's 10 USDC otherwise).
      const { allocationAdapter, payToken } = contractsOf(devnet)
      await sendOk(devnet, 'deployer', callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', [1n, payToken, payee, amount]))
      const order: Order = allocationOrder(devnet, { feeBps, amount: amount.toString() })
      const { result, adapterEvents, orderHash } = await settle(await signed(devnet, order), allocationAdapterAbi, fee)
      expect(adapterEvents.map((log) => ({ eventName: log.eventName, args: log.args }))).toEqual([
        { eventName: 'AllocationGranted', args: { orderHash, vaultId: 1n, consumer, slot: 0n } },
      ])
      expect(decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], result)).toEqual([1n, 0n])
    })
  }

  test('consecutive orders take consecutive slots of the vault', async () => {
    for (const slot of [0n, 1n, 2n]) {
      const { adapterEvents } = await settle(await signed(devnet, allocationOrder(devnet, { params: vaultParams(1n) })), allocationAdapterAbi, 50_000n)
      expect(adapterEvents[0]!.args).toMatchObject({ vaultId: 1n, slot })
    }
    const vault = await devnet.publicClient.readContract({ address: contractsOf(devnet).allocationAdapter, abi: allocationAdapterAbi, functionName: 'vaults', args: [1n] })
    expect(vault).toEqual([1000n, 3n])
  })
})

describe('express-lane adapter', () => {
  test('the lane operator controls round 1: LaneGranted(round 1)', async () => {
    const order = allocationOrder(devnet, { adapter: contractsOf(devnet).expressLaneAdapter, params: '0x' })
    const { result, adapterEvents, orderHash } = await settle(await signed(devnet, order), expressLaneAdapterAbi, 50_000n)
    expect(adapterEvents.map((log) => ({ eventName: log.eventName, args: log.args }))).toEqual([
      { eventName: 'LaneGranted', args: { orderHash, round: 1n, consumer } },
    ])
    expect(decodeAbiParameters([{ type: 'uint64' }], result)).toEqual([1n])
  })
})

describe('attested adapter', () => {
  test('an attestation signed by the devnet attestor: AttestedGranted(claim)', async () => {
    const claim: Hex = keccak256(stringToHex('seat 12A'))
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = await attestationParams(devnet, { consumer, claim, notAfter })
    // The claim's kind (its first four bytes) costs 25 USDC: the kind's own price, not the devnet default.
    const { attestedAdapter, payToken } = contractsOf(devnet)
    await sendOk(devnet, 'deployer', callOf(attestedAdapter, attestedAdapterAbi, 'setClaimPayment', [slice(claim, 0, 4), payToken, payee, 25n * usdc]))
    const order = allocationOrder(devnet, { adapter: contractsOf(devnet).attestedAdapter, params, amount: (25n * usdc).toString(), feeBps: 120 })
    const { result, adapterEvents, orderHash } = await settle(await signed(devnet, order), attestedAdapterAbi, 300_000n)
    expect(adapterEvents.map((log) => ({ eventName: log.eventName, args: log.args }))).toEqual([
      { eventName: 'AttestedGranted', args: { orderHash, consumer, claim } },
    ])
    expect(decodeAbiParameters([{ type: 'bytes32' }], result)).toEqual([claim])
    expect(await attestationUsed(devnet, { consumer, claim, notAfter })()).toBe(true)
  })
})
