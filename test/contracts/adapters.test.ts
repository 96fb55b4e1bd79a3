// SPEC.md 7.3, the adapters' reverts: AllocationSoldOut(uint256), NoLaneControl(),
// NotBroker(), BadAttestation(), AttestationExpired(), ZeroAddress(). Sent straight to the
// contracts, never through the relayer; every revert leaves balances, the authorization
// and the adapter's own state as they were.
import { describe, expect, test } from 'bun:test'
import { type Address, encodeAbiParameters, encodeDeployData, type Hex, keccak256, stringToHex, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  allocationAdapterAbi,
  allocationAdapterBytecode,
  attestedAdapterAbi,
  attestedAdapterBytecode,
  expressLaneAdapterAbi,
  expressLaneAdapterBytecode,
  mockExpressLaneAuctionAbi,
} from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../src/devnet/index.ts'
import type { Order, RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { attestationParams, contractsOf, attestationUsed, brokerCall, callOf, chainNow, expectRevert, orderWatch, sendOk, useSnapshottedDevnet, type Watch } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

const contracts = () => contractsOf(devnet)
const claim: Hex = keccak256(stringToHex('seat 12A'))

/** Sends `request` to the broker and expects exactly `expected`, with nothing moved. */
async function expectOrderRevert(request: RelayRequest, expected: string, extra: Watch['extra'] = []) {
  return expectRevert(devnet, { call: brokerCall(devnet, request), expected, watch: orderWatch(devnet, request, extra) })
}

const vaultState = (vaultId: bigint) => () =>
  devnet.publicClient.readContract({ address: contracts().allocationAdapter, abi: allocationAdapterAbi, functionName: 'vaults', args: [vaultId] })

describe('AllocationSoldOut(uint256 vaultId)', () => {
  test('an unconfigured vault (7)', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
    const error = await expectOrderRevert(request, 'AllocationSoldOut(vaultId=7)', [vaultState(7n)])
    expect(error).toEqual({ name: 'AllocationSoldOut', args: { vaultId: '7' }, text: 'AllocationSoldOut(vaultId=7)' })
  })

  test('a vault whose only slot is used up', async () => {
    await sendOk(devnet, 'deployer', callOf(contracts().allocationAdapter, allocationAdapterAbi, 'configureVault', [2n, 1n]))
    const first = await signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) }))
    await sendOk(devnet, 'relayer', brokerCall(devnet, first))
    expect(await vaultState(2n)()).toEqual([1n, 1n])
    const second = await signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) }))
    await expectOrderRevert(second, 'AllocationSoldOut(vaultId=2)', [vaultState(2n)])
  })

  test('a vault configured with zero slots', async () => {
    await sendOk(devnet, 'deployer', callOf(contracts().allocationAdapter, allocationAdapterAbi, 'configureVault', [3n, 0n]))
    const request = await signed(devnet, allocationOrder(devnet, { params: vaultParams(3n) }))
    await expectOrderRevert(request, 'AllocationSoldOut(vaultId=3)', [vaultState(3n)])
  })
})

describe('NoLaneControl()', () => {
  type Round = { expressLaneController: Address; round: bigint }
  const unset: Round = { expressLaneController: zeroAddress, round: 0n }
  const operator = devnetAccounts.laneOperator.address
  const rival = devnetAccounts.spare.address

  async function setAuction(currentRound: bigint, a: Round, b: Round) {
    const auction = contracts().expressLaneAuction
    await sendOk(devnet, 'deployer', callOf(auction, mockExpressLaneAuctionAbi, 'setCurrentRound', [currentRound]))
    await sendOk(devnet, 'deployer', callOf(auction, mockExpressLaneAuctionAbi, 'setResolvedRounds', [a, b]))
  }

  const laneOrder = (): Order => allocationOrder(devnet, { adapter: contracts().expressLaneAdapter, params: '0x' })

  const cases: [string, bigint, Round, Round][] = [
    ['the operator controlled the previous round only', 2n, { expressLaneController: operator, round: 1n }, { expressLaneController: rival, round: 2n }],
    ['a rival controls the current round', 5n, { expressLaneController: rival, round: 5n }, { expressLaneController: operator, round: 4n }],
    ['the operator won a future round, not the current one', 3n, { expressLaneController: operator, round: 4n }, unset],
    ['round 0 with both entries unset', 0n, unset, unset],
    ['the current round is resolved to the zero controller', 6n, { expressLaneController: zeroAddress, round: 6n }, unset],
    ['nothing resolved yet, current round 1', 1n, unset, unset],
  ]
  for (const [name, currentRound, a, b] of cases) {
    test(name, async () => {
      await setAuction(currentRound, a, b)
      const request = await signed(devnet, laneOrder())
      const error = await expectOrderRevert(request, 'NoLaneControl()')
      expect(error.name).toBe('NoLaneControl')
    })
  }

  test('control in either resolved entry is enough (the contrast case)', async () => {
    await setAuction(9n, { expressLaneController: rival, round: 8n }, { expressLaneController: operator, round: 9n })
    const request = await signed(devnet, laneOrder())
    await sendOk(devnet, 'relayer', brokerCall(devnet, request))
  })
})

describe('NotBroker()', () => {
  const adapters = [
    ['AllocationAdapter', () => contracts().allocationAdapter, allocationAdapterAbi, () => vaultParams(1n)],
    ['ExpressLaneAdapter', () => contracts().expressLaneAdapter, expressLaneAdapterAbi, () => '0x' as Hex],
    [
      'AttestedAdapter',
      () => contracts().attestedAdapter,
      attestedAdapterAbi,
      () => encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], [claim, 2n ** 63n, '0x']),
    ],
  ] as const
  for (const [name, address, abi, params] of adapters) {
    for (const from of ['relayer', 'deployer', 'consumer'] as const) {
      test(`${name}.grant called directly by the ${from}`, async () => {
        const call = callOf(address(), abi, 'grant', [keccak256('0x01'), devnetAccounts.consumer.address, contracts().payToken, devnetAccounts.payee.address, 10n * usdc, params()])
        const watch: Watch = {
          token: contracts().payToken,
          holders: [devnetAccounts.consumer.address, devnetAccounts[from].address],
          extra: [vaultState(1n)],
        }
        const error = await expectRevert(devnet, { from, call, expected: 'NotBroker()', watch })
        expect(error.name).toBe('NotBroker')
      })
    }
  }
})

describe('attested adapter', () => {
  const attestedOrder = (params: Hex): Order => allocationOrder(devnet, { adapter: contracts().attestedAdapter, params })
  const consumer = devnetAccounts.consumer.address

  test('BadAttestation(): signed by someone other than the attestor', async () => {
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = await attestationParams(devnet, { consumer, claim, notAfter, signer: privateKeyToAccount(devnetAccounts.spare.privateKey) })
    const request = await signed(devnet, attestedOrder(params))
    const error = await expectOrderRevert(request, 'BadAttestation()', [attestationUsed(devnet, { consumer, claim, notAfter })])
    expect(error.name).toBe('BadAttestation')
  })

  test('BadAttestation(): signed by the attestor for another consumer', async () => {
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = await attestationParams(devnet, { consumer: devnetAccounts.spare.address, claim, notAfter })
    await expectOrderRevert(await signed(devnet, attestedOrder(params)), 'BadAttestation()')
  })

  test('BadAttestation(): an empty signature', async () => {
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint64' }, { type: 'bytes' }], [claim, notAfter, '0x'])
    await expectOrderRevert(await signed(devnet, attestedOrder(params)), 'BadAttestation()')
  })

  test('BadAttestation(): the old attestor after setAttestor', async () => {
    await sendOk(devnet, 'deployer', callOf(contracts().attestedAdapter, attestedAdapterAbi, 'setAttestor', [devnetAccounts.spare.address]))
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = await attestationParams(devnet, { consumer, claim, notAfter })
    await expectOrderRevert(await signed(devnet, attestedOrder(params)), 'BadAttestation()')
  })

  test('AttestationExpired(): notAfter is in the past', async () => {
    const notAfter = (await chainNow(devnet)) - 1n
    const params = await attestationParams(devnet, { consumer, claim, notAfter })
    const used = attestationUsed(devnet, { consumer, claim, notAfter })
    const error = await expectOrderRevert(await signed(devnet, attestedOrder(params)), 'AttestationExpired()', [used])
    expect(await used()).toBe(false)
    expect(error.name).toBe('AttestationExpired')
  })

  test('AttestationUsed(): an attestation grants once (the contract is single-use, beyond SPEC 7.3)', async () => {
    const notAfter = (await chainNow(devnet)) + 3600n
    const params = await attestationParams(devnet, { consumer, claim, notAfter })
    const used = attestationUsed(devnet, { consumer, claim, notAfter })
    expect(await used()).toBe(false)
    await sendOk(devnet, 'relayer', brokerCall(devnet, await signed(devnet, attestedOrder(params))))
    expect(await used()).toBe(true)
    await expectOrderRevert(await signed(devnet, attestedOrder(params)), 'AttestationUsed()', [used])
  })
})

describe('ZeroAddress()', () => {
  const broker = () => contracts().broker
  const owner = devnetAccounts.deployer.address
  const someone = devnetAccounts.spare.address

  const constructions: [string, () => Hex][] = [
    ['AllocationAdapter(broker = 0)', () => encodeDeployData({ abi: allocationAdapterAbi, bytecode: allocationAdapterBytecode, args: [zeroAddress, owner] })],
    ['AllocationAdapter(owner = 0)', () => encodeDeployData({ abi: allocationAdapterAbi, bytecode: allocationAdapterBytecode, args: [broker(), zeroAddress] })],
    [
      'ExpressLaneAdapter(broker = 0)',
      () => encodeDeployData({ abi: expressLaneAdapterAbi, bytecode: expressLaneAdapterBytecode, args: [zeroAddress, contracts().expressLaneAuction, someone, owner] }),
    ],
    [
      'ExpressLaneAdapter(auction = 0)',
      () => encodeDeployData({ abi: expressLaneAdapterAbi, bytecode: expressLaneAdapterBytecode, args: [broker(), zeroAddress, someone, owner] }),
    ],
    [
      'ExpressLaneAdapter(laneOperator = 0)',
      () => encodeDeployData({ abi: expressLaneAdapterAbi, bytecode: expressLaneAdapterBytecode, args: [broker(), contracts().expressLaneAuction, zeroAddress, owner] }),
    ],
    [
      'ExpressLaneAdapter(owner = 0)',
      () => encodeDeployData({ abi: expressLaneAdapterAbi, bytecode: expressLaneAdapterBytecode, args: [broker(), contracts().expressLaneAuction, someone, zeroAddress] }),
    ],
    ['AttestedAdapter(broker = 0)', () => encodeDeployData({ abi: attestedAdapterAbi, bytecode: attestedAdapterBytecode, args: [zeroAddress, someone, owner] })],
    ['AttestedAdapter(attestor = 0)', () => encodeDeployData({ abi: attestedAdapterAbi, bytecode: attestedAdapterBytecode, args: [broker(), zeroAddress, owner] })],
    ['AttestedAdapter(owner = 0)', () => encodeDeployData({ abi: attestedAdapterAbi, bytecode: attestedAdapterBytecode, args: [broker(), someone, zeroAddress] })],
  ]
  for (const [name, data] of constructions) {
    test(`construction: ${name}`, async () => {
      const watch: Watch = { token: contracts().payToken, holders: [owner] }
      const error = await expectRevert(devnet, { from: 'deployer', call: { data: data() }, expected: 'ZeroAddress()', watch })
      expect(error).toEqual({ name: 'ZeroAddress', args: {}, text: 'ZeroAddress()' })
    })
  }

  const laneOperatorOf = () =>
    devnet.publicClient.readContract({ address: contracts().expressLaneAdapter, abi: expressLaneAdapterAbi, functionName: 'laneOperator' })
  const attestorOf = () => devnet.publicClient.readContract({ address: contracts().attestedAdapter, abi: attestedAdapterAbi, functionName: 'attestor' })

  test('admin: setLaneOperator(0) by the owner', async () => {
    const call = callOf(contracts().expressLaneAdapter, expressLaneAdapterAbi, 'setLaneOperator', [zeroAddress])
    await expectRevert(devnet, { from: 'deployer', call, expected: 'ZeroAddress()', watch: { token: contracts().payToken, holders: [], extra: [laneOperatorOf] } })
    expect(await laneOperatorOf()).toBe(devnetAccounts.laneOperator.address)
  })

  test('admin: setAttestor(0) by the owner', async () => {
    const call = callOf(contracts().attestedAdapter, attestedAdapterAbi, 'setAttestor', [zeroAddress])
    await expectRevert(devnet, { from: 'deployer', call, expected: 'ZeroAddress()', watch: { token: contracts().payToken, holders: [], extra: [attestorOf] } })
    expect(await attestorOf()).toBe(devnetAccounts.attestor.address)
  })

  // OpenZeppelin's Ownable would answer OwnableInvalidOwner(0); SPEC 7.3 says ZeroAddress().
  for (const [name, abi, address] of [
    ['AllocationAdapter', allocationAdapterAbi, () => contracts().allocationAdapter],
    ['ExpressLaneAdapter', expressLaneAdapterAbi, () => contracts().expressLaneAdapter],
    ['AttestedAdapter', attestedAdapterAbi, () => contracts().attestedAdapter],
  ] as const) {
    test(`admin: ${name}.transferOwnership(0) by the owner`, async () => {
      const ownerOf = () => devnet.publicClient.readContract({ address: address(), abi, functionName: 'owner' })
      const call = callOf(address(), abi, 'transferOwnership', [zeroAddress])
      await expectRevert(devnet, { from: 'deployer', call, expected: 'ZeroAddress()', watch: { token: contracts().payToken, holders: [], extra: [ownerOf] } })
      expect(await ownerOf()).toBe(devnetAccounts.deployer.address)
    })
  }
})
