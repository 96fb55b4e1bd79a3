// SPEC.md 7.3, the payment token's EIP-3009 reverts, each with its exact string:
// invalid signature, authorization expired, authorization used, authorization not yet
// valid, caller must be the payee. Sent straight to the contracts, never through the relayer.
import { describe, expect, test } from 'bun:test'
import { type Address, encodeDeployData, type Hex, parseSignature } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { mockEIP3009TokenAbi, mockEIP3009TokenBytecode } from '../../src/chain/index.ts'
import { readTokenDomain } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts } from '../../src/devnet/index.ts'
import { hashOrder, receiveAuthorizationTypedData, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { brokerCall, callOf, contractsOf, chainNow, expectRevert, orderWatch, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
let otherToken: Address
useSnapshottedDevnet(
  (started) => (devnet = started),
  async (started) => {
    const receipt = await sendOk(started, 'deployer', {
      data: encodeDeployData({ abi: mockEIP3009TokenAbi, bytecode: mockEIP3009TokenBytecode, args: ['Other USD', '1'] }),
    })
    otherToken = receipt.contractAddress!
  },
)

/** What the untampered order would move: the watch stays on the original order's parties and nonce. */
async function expectBrokerRevert(original: RelayRequest, sent: RelayRequest, expected: string) {
  const watch = orderWatch(devnet, original)
  const tamperedWatch = orderWatch(devnet, sent)
  return expectRevert(devnet, {
    call: brokerCall(devnet, sent),
    expected,
    watch: {
      ...watch,
      holders: [...new Set([...watch.holders, ...tamperedWatch.holders])],
      authorizations: [...watch.authorizations!, ...tamperedWatch.authorizations!],
    },
  })
}

describe('invalid signature', () => {
  test('the signer is not order.consumer', async () => {
    const order = allocationOrder(devnet)
    const impostor = privateKeyToAccount(devnetAccounts.spare.privateKey)
    const domain = await readTokenDomain(devnet.publicClient, order.payToken as Address)
    const validBefore = (await chainNow(devnet)) + 3600n
    const signature = parseSignature(
      await impostor.signTypedData(
        receiveAuthorizationTypedData({
          domain,
          from: order.consumer as Address,
          to: contractsOf(devnet).broker,
          value: BigInt(order.amount),
          validAfter: 0n,
          validBefore,
          nonce: hashOrder(order),
        }),
      ),
    )
    const request: RelayRequest = {
      order,
      signature: { v: Number(signature.v), r: signature.r, s: signature.s },
      validAfter: '0',
      validBefore: validBefore.toString(),
      chainId: devnet.chainId,
    }
    await expectBrokerRevert(request, request, 'invalid signature')
  })

  const tamperings: [string, (request: RelayRequest) => RelayRequest][] = [
    ['order.consumer', (r) => ({ ...r, order: { ...r.order, consumer: devnetAccounts.spare.address } })],
    ['order.adapter', (r) => ({ ...r, order: { ...r.order, adapter: contractsOf(devnet).expressLaneAdapter } })],
    ['order.params', (r) => ({ ...r, order: { ...r.order, params: vaultParams(2n) } })],
    ['order.payToken', (r) => ({ ...r, order: { ...r.order, payToken: otherToken } })],
    ['order.payee', (r) => ({ ...r, order: { ...r.order, payee: devnetAccounts.spare.address } })],
    ['order.amount', (r) => ({ ...r, order: { ...r.order, amount: (BigInt(r.order.amount) + 1n).toString() } })],
    ['order.nonce', (r) => ({ ...r, order: { ...r.order, nonce: (BigInt(r.order.nonce) + 1n).toString() } })],
    ['order.feeBps', (r) => ({ ...r, order: { ...r.order, feeBps: r.order.feeBps + 1 } })],
    ['validAfter', (r) => ({ ...r, validAfter: '1' })],
    ['validBefore', (r) => ({ ...r, validBefore: (BigInt(r.validBefore) + 1n).toString() })],
    ['signature.v', (r) => ({ ...r, signature: { ...r.signature, v: r.signature.v === 27 ? 28 : 27 } })],
    ['signature.s', (r) => ({ ...r, signature: { ...r.signature, s: `0x${'00'.repeat(31)}01` } })],
  ]
  for (const [field, tamper] of tamperings) {
    test(`a tampered ${field}`, async () => {
      const original = await signed(devnet, allocationOrder(devnet))
      const tampered = tamper(original)
      expect(tampered).not.toEqual(original)
      await expectBrokerRevert(original, tampered, 'invalid signature')
    })
  }
})

test('authorization expired: validBefore is in the past', async () => {
  const validBefore = (await chainNow(devnet)) - 1n
  const request = await signed(devnet, allocationOrder(devnet), { validBefore })
  await expectBrokerRevert(request, request, 'authorization expired')
})

test('authorization not yet valid: validAfter is in the future', async () => {
  const now = await chainNow(devnet)
  const request = await signed(devnet, allocationOrder(devnet), { validAfter: now + 3600n, validBefore: now + 7200n })
  await expectBrokerRevert(request, request, 'authorization not yet valid')
})

test('authorization used: a settled order sent again', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  await sendOk(devnet, 'relayer', brokerCall(devnet, request))
  const state = await devnet.publicClient.readContract({
    address: request.order.payToken as Address,
    abi: mockEIP3009TokenAbi,
    functionName: 'authorizationState',
    args: [request.order.consumer as Address, hashOrder(request.order)],
  })
  expect(state).toBe(true)
  await expectBrokerRevert(request, request, 'authorization used')
  // The same replay by another relayer fails the same way.
  await expectRevert(devnet, { from: 'secondRelayer', call: brokerCall(devnet, request), expected: 'authorization used', watch: orderWatch(devnet, request) })
})

test('caller must be the payee: receiveWithAuthorization redeemed by someone other than `to` (the broker)', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  const { order } = request
  const call = callOf(order.payToken as Address, mockEIP3009TokenAbi, 'receiveWithAuthorization', [
    order.consumer,
    contractsOf(devnet).broker,
    BigInt(order.amount),
    BigInt(request.validAfter),
    BigInt(request.validBefore),
    hashOrder(order) as Hex,
    request.signature.v,
    request.signature.r,
    request.signature.s,
  ])
  await expectRevert(devnet, { call, expected: 'caller must be the payee', watch: orderWatch(devnet, request) })
})
