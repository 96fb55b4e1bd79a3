// SPEC.md 7.3, every on-chain revert as a client sees it through POST /broker: 422
// WOULD_REVERT naming the decoded revert, answered from the simulation without
// spending gas. Where the pipeline answers before the chain (an expired window), the
// same request sent straight to the Broker shows the chain's own revert.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Abi, type Address, encodeErrorResult, encodeFunctionData, getAddress, type Hex, keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  allocationAdapterAbi,
  allocationAdapterBytecode,
  attestedAdapterAbi,
  brokerAbi,
  expressLaneAdapterAbi,
  falseReturnTokenAbi,
  falseReturnTokenBytecode,
  mockEIP3009TokenAbi,
  mockExpressLaneAuctionAbi,
  reentrantAdapterAbi,
  reentrantAdapterBytecode,
} from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet, usdc } from '../../src/devnet/index.ts'
import { receiveAuthorizationTypedData, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { attestationParams, chainSays, chainTime, deploy, directBrokerCall, write } from './support/chain.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  // Tokens this file deploys have no price: a small hourly budget lets their reverts be seen
  // (a relayer without one refuses them before simulating, test/relayer/economics.test.ts).
  relayer = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_UNPRICED_GAS_BUDGET_WEI: '10000000000000000' } })
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

const spare = privateKeyToAccount(devnetAccounts.spare.privateKey)

/** Posts the request and checks the relayer sent no transaction for it (the simulation answered). */
async function postWithoutGas(request: RelayRequest) {
  exposure.request(request)
  const relayerAddress = devnetAccounts.relayer.address
  const before = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
  const answer = await relayer.post(request)
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(before)
  return answer
}

type ExpectedRevert = { contract?: string; name: string; args: Record<string, string>; selector: string; data: string }
const wouldRevert = (message: string, revert?: ExpectedRevert) => ({ status: 422, body: { ok: false, code: 'WOULD_REVERT', message, ...(revert ? { revert } : {}) } })

/** The body's `revert` for a custom error, its data encoded as the contract reverts with it; `contract` when one contract alone declares it. */
function customRevert(contract: string | undefined, abi: Abi, name: string, args: readonly unknown[] = [], named: Record<string, string> = {}): ExpectedRevert {
  const data = encodeErrorResult({ abi, errorName: name, args })
  return { ...(contract ? { contract } : {}), name, args: named, selector: data.slice(0, 10), data }
}

const errorStringAbi = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const
/** The body's `revert` for a revert string. */
function stringRevert(reason: string): ExpectedRevert {
  const data = encodeErrorResult({ abi: errorStringAbi, errorName: 'Error', args: [reason] })
  return { name: 'Error', args: { reason }, selector: data.slice(0, 10), data }
}

describe('broker contract', () => {
  test('FeeTooHigh(): feeBps over 10000', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { feeBps: 10001 }))
    const { status, body } = await postWithoutGas(request)
    expect({ status, body }).toEqual(wouldRevert('would revert: FeeTooHigh()', customRevert('Broker', brokerAbi, 'FeeTooHigh')))
  })

  test('ReentrancyGuardReentrantCall(): an adapter that re-enters the broker', async () => {
    const reentrant = await deploy(devnet, reentrantAdapterAbi, reentrantAdapterBytecode, [devnet.manifest.contracts.broker])
    const request = await signed(devnet, allocationOrder(devnet, { adapter: reentrant, params: '0x' }))
    const { status, body } = await postWithoutGas(request)
    expect({ status, body }).toEqual(wouldRevert('would revert: ReentrancyGuardReentrantCall()', customRevert('Broker', brokerAbi, 'ReentrancyGuardReentrantCall')))
  })

  test('SafeERC20FailedOperation(address): a pay token whose transfer returns false', async () => {
    const token = await deploy(devnet, falseReturnTokenAbi, falseReturnTokenBytecode, ['False USD', '1'])
    await write(devnet, 'deployer', { address: token, abi: mockEIP3009TokenAbi, functionName: 'mint', args: [devnetAccounts.consumer.address, 100n * usdc] })
    const request = await signed(devnet, allocationOrder(devnet, { payToken: token }))
    const { status, body } = await postWithoutGas(request)
    expect({ status, body }).toEqual(wouldRevert(`would revert: SafeERC20FailedOperation(token=${getAddress(token)})`, customRevert('Broker', brokerAbi, 'SafeERC20FailedOperation', [token], { token: getAddress(token) })))
  })
})

describe('payment token (EIP-3009)', () => {
  test('invalid signature: the signer is not order.consumer', async () => {
    const order = allocationOrder(devnet)
    const request = await signed(devnet, order)
    // The same authorization, signed by another key.
    const forged = await spare.signTypedData(
      receiveAuthorizationTypedData({
        domain: { name: 'USD Coin', version: '2', chainId: devnet.chainId, verifyingContract: devnet.manifest.contracts.payToken },
        from: devnetAccounts.consumer.address,
        to: devnet.manifest.contracts.broker,
        value: BigInt(order.amount),
        validAfter: BigInt(request.validAfter),
        validBefore: BigInt(request.validBefore),
        nonce: request.orderHash as Hex,
      }),
    )
    const r = `0x${forged.slice(2, 66)}`
    const s = `0x${forged.slice(66, 130)}`
    const v = Number.parseInt(forged.slice(130, 132), 16)
    const { status, body } = await postWithoutGas({ ...request, signature: { v, r, s } })
    expect({ status, body }).toEqual(wouldRevert('would revert: invalid signature', stringRevert('invalid signature')))
  })

  test('invalid signature: an order field tampered after signing (amount)', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    const { orderHash: _dropped, ...rest } = request
    const tampered = { ...rest, order: { ...request.order, amount: (BigInt(request.order.amount) * 2n).toString() } }
    const { status, body } = await postWithoutGas(tampered)
    expect({ status, body }).toEqual(wouldRevert('would revert: invalid signature', stringRevert('invalid signature')))
  })

  test('invalid signature: an order field tampered after signing (payee, the relayer redirecting the payout)', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    const { orderHash: _dropped, ...rest } = request
    const tampered = { ...rest, order: { ...request.order, payee: devnetAccounts.relayer.address } }
    const { status, body } = await postWithoutGas(tampered)
    expect({ status, body }).toEqual(wouldRevert('would revert: invalid signature', stringRevert('invalid signature')))
  })

  test('authorization expired: the relayer answers AUTH_EXPIRED before the chain; the Broker itself reverts', async () => {
    const now = await chainTime(devnet)
    const request = await signed(devnet, allocationOrder(devnet), { validBefore: now - 10n })
    const { status, body } = await postWithoutGas(request)
    expect(status).toBe(422)
    expect(body.ok).toBe(false)
    expect(body.code).toBe('AUTH_EXPIRED')
    expect(String(body.message)).toMatch(
      new RegExp(`^authorization window has passed \\(validBefore ${now - 10n}, (chain time \\d+|this relayer's clock \\d+; chain time \\d+)\\); re-sign with a fresh window$`),
    )
    // The same request sent directly to the Broker: the token's own revert.
    expect(await chainSays(devnet, directBrokerCall(devnet, request))).toBe('authorization expired')
  })

  test('authorization not yet valid: validAfter in the future', async () => {
    const now = await chainTime(devnet)
    const request = await signed(devnet, allocationOrder(devnet), { validAfter: now + 3600n, validBefore: now + 7200n })
    const { status, body } = await postWithoutGas(request)
    // Refused before the chain: the answer says from when the order is valid.
    expect({ status, code: body.code }).toEqual({ status: 422, code: 'WOULD_REVERT' })
    expect(String(body.message)).toMatch(
      new RegExp(
        `^would revert: authorization not yet valid \\(validAfter ${now + 3600n}, chain time \\d+\\); valid from ${now + 3601n} \\(unix seconds, in \\d+ s\\): send the same order again then, no need to re-sign$`,
      ),
    )
    // The same request sent directly to the Broker: the token's own revert.
    expect(await chainSays(devnet, directBrokerCall(devnet, request))).toBe('authorization not yet valid')
  })

  test('authorization used: a replay names the settling tx, from memory and from the chain', async () => {
    const request = await signed(devnet, allocationOrder(devnet))
    exposure.request(request)
    const first = await relayer.post(request)
    expect(first.status).toBe(200)
    const txHash = String(first.body.txHash)

    const expected = wouldRevert(`would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce`)
    // Every replay gets the same answer while nothing on chain changes, however often it comes.
    for (let i = 0; i < 7; i++) {
      const replay = await postWithoutGas(request)
      expect({ replay: i, status: replay.status, body: replay.body }).toEqual({ replay: i, ...expected })
    }

    // A relayer that did not settle it finds the tx in the Broker's Brokered logs.
    const other = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
    try {
      const answer = await other.post(request)
      expect({ status: answer.status, body: answer.body }).toEqual(expected)
    } finally {
      await other.stop()
    }
    expect(await chainSays(devnet, directBrokerCall(devnet, request))).toBe('authorization used')
  })
})

test('authorization used after broadcast: two relayers race for one order; the loser\'s tx reverts, and its client too is answered 200 naming the tx that settled the order', async () => {
  const request = await signed(devnet, allocationOrder(devnet))
  exposure.request(request)
  const rival = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  // Warm the rival (gas price, the adapter's gas limit) so that, like the first relayer,
  // it needs one eth_call against the latest block before broadcasting.
  const warm = await signed(devnet, allocationOrder(devnet))
  exposure.request(warm)
  expect((await rival.post(warm)).status).toBe(200)
  await devnet.testClient.setAutomine(false)
  try {
    // Both simulate against the same state and broadcast; one block then holds both.
    const answers = Promise.all([relayer.post(request), rival.post(request)])
    const deadline = Date.now() + 5_000
    while ((await devnet.publicClient.getBlock({ blockTag: 'pending' })).transactions.length < 2) {
      if (Date.now() > deadline) throw new Error(`both relayers should have broadcast: ${JSON.stringify(await Promise.race([answers, Bun.sleep(100)]))}`)
      await Bun.sleep(5)
    }
    await devnet.testClient.mine({ blocks: 1 })
    const [a, b] = await answers
    // The order settled (in the winner's tx): both clients are told so, never "build a new order".
    expect([a.status, b.status]).toEqual([200, 200])
    expect(b.body.txHash).toBe(a.body.txHash)
    const block = await devnet.publicClient.getBlock({ blockTag: 'latest' })
    const statuses = await Promise.all(block.transactions.map(async (hash) => ({ hash, status: (await devnet.publicClient.getTransactionReceipt({ hash })).status })))
    const lost = statuses.filter(({ hash }) => hash !== a.body.txHash)
    expect(lost.map(({ status }) => status)).toEqual(['reverted'])
    expect(statuses.find(({ hash }) => hash === a.body.txHash)?.status).toBe('success')
  } finally {
    await devnet.testClient.setAutomine(true)
    await rival.stop()
  }
}, 20_000)

describe('allocation adapter', () => {
  test('AllocationSoldOut(vaultId=7): an unconfigured vault', async () => {
    const request = await signed(devnet, allocationOrder(devnet, { params: vaultParams(7n) }))
    const { status, body } = await postWithoutGas(request)
    expect({ status, body }).toEqual(wouldRevert('would revert: AllocationSoldOut(vaultId=7)', customRevert('AllocationAdapter', allocationAdapterAbi, 'AllocationSoldOut', [7n], { vaultId: '7' })))
  })

  test('AllocationSoldOut(vaultId=9): a vault whose only slot was sold', async () => {
    await write(devnet, 'deployer', { address: devnet.manifest.contracts.allocationAdapter, abi: allocationAdapterAbi, functionName: 'configureVault', args: [9n, 1n] })
    const first = await signed(devnet, allocationOrder(devnet, { params: vaultParams(9n) }))
    exposure.request(first)
    const sold = await relayer.post(first)
    expect(sold.status).toBe(200)
    expect(sold.body.receipt).toEqual({
      adapter: 'allocation',
      event: 'AllocationGranted',
      fields: { orderHash: first.orderHash, vaultId: '9', consumer: devnetAccounts.consumer.address, slot: '0' },
    })
    const second = await signed(devnet, allocationOrder(devnet, { params: vaultParams(9n) }))
    const { status, body } = await postWithoutGas(second)
    expect({ status, body }).toEqual(wouldRevert('would revert: AllocationSoldOut(vaultId=9)', customRevert('AllocationAdapter', allocationAdapterAbi, 'AllocationSoldOut', [9n], { vaultId: '9' })))
  })
})

describe('express-lane adapter', () => {
  const laneOrder = async () => signed(devnet, allocationOrder(devnet, { adapter: devnet.manifest.contracts.expressLaneAdapter, params: '0x' }))
  const setRound = (round: bigint) =>
    write(devnet, 'deployer', { address: devnet.manifest.contracts.expressLaneAuction, abi: mockExpressLaneAuctionAbi, functionName: 'setCurrentRound', args: [round] })

  test('NoLaneControl(): the lane operator does not control the current round', async () => {
    await setRound(2n)
    try {
      const { status, body } = await postWithoutGas(await laneOrder())
      expect({ status, body }).toEqual(wouldRevert('would revert: NoLaneControl()', customRevert('ExpressLaneAdapter', expressLaneAdapterAbi, 'NoLaneControl')))
    } finally {
      await setRound(1n)
    }
  })

  test('back in control, the same kind of order settles with a LaneGranted receipt', async () => {
    const request = await laneOrder()
    exposure.request(request)
    const { status, body } = await relayer.post(request)
    expect(status).toBe(200)
    expect(body.receipt).toEqual({
      adapter: 'expressLane',
      event: 'LaneGranted',
      fields: { orderHash: request.orderHash, round: '1', consumer: devnetAccounts.consumer.address },
    })
  })
})

describe('any adapter', () => {
  test('NotBroker(): an adapter bound to another broker, reached through ours', async () => {
    const foreign = await deploy(devnet, allocationAdapterAbi, allocationAdapterBytecode, [devnetAccounts.spare.address, devnetAccounts.deployer.address])
    await write(devnet, 'deployer', { address: foreign, abi: allocationAdapterAbi, functionName: 'configureVault', args: [1n, 10n] })
    const { status, body } = await postWithoutGas(await signed(devnet, allocationOrder(devnet, { adapter: foreign })))
    expect({ status, body }).toEqual(wouldRevert('would revert: NotBroker()', customRevert(undefined, allocationAdapterAbi, 'NotBroker')))
    // Directly: anyone but the broker calling grant.
    const grant = encodeFunctionData({
      abi: allocationAdapterAbi,
      functionName: 'grant',
      args: [keccak256(stringToHex('x')), devnetAccounts.consumer.address, devnet.manifest.contracts.payToken, devnetAccounts.payee.address, 1n, vaultParams(1n)],
    })
    expect(await chainSays(devnet, { from: devnetAccounts.spare.address, to: devnet.manifest.contracts.allocationAdapter, data: grant })).toBe('NotBroker()')
  })

  test('ZeroAddress(): raised at construction and by admin calls; the relayer names it when an adapter reverts with it', async () => {
    // Where it really comes from: a zero address given to a constructor or an admin call.
    const zero: Address = '0x0000000000000000000000000000000000000000'
    const setZero = encodeFunctionData({ abi: expressLaneAdapterAbi, functionName: 'setLaneOperator', args: [zero] })
    expect(await chainSays(devnet, { from: devnetAccounts.deployer.address, to: devnet.manifest.contracts.expressLaneAdapter, data: setZero })).toBe('ZeroAddress()')
    const setAttestor = encodeFunctionData({ abi: attestedAdapterAbi, functionName: 'setAttestor', args: [zero] })
    expect(await chainSays(devnet, { from: devnetAccounts.deployer.address, to: devnet.manifest.contracts.attestedAdapter, data: setAttestor })).toBe('ZeroAddress()')
    await expect(deploy(devnet, allocationAdapterAbi, allocationAdapterBytecode, [zero, devnetAccounts.deployer.address])).rejects.toThrow()

    // Through POST /broker: an adapter whose grant reverts with ZeroAddress() (a minimal
    // contract that always reverts with the selector 0xd92e233d).
    const runtime = '63d92e233d60e01b5f5260045ffd' // PUSH4 sel; PUSH1 224; SHL; PUSH0; MSTORE; PUSH1 4; PUSH0; REVERT
    const initCode = `0x600e600a5f39600e5ff3${runtime}` as Hex // CODECOPY the 14 runtime bytes and RETURN them
    const hash = await devnet.wallet('deployer').sendTransaction({ data: initCode, to: null })
    const adapter = (await devnet.publicClient.waitForTransactionReceipt({ hash })).contractAddress!
    const { status, body } = await postWithoutGas(await signed(devnet, allocationOrder(devnet, { adapter, params: '0x' })))
    expect({ status, body }).toEqual(wouldRevert('would revert: ZeroAddress()', customRevert(undefined, allocationAdapterAbi, 'ZeroAddress')))
  })
})

describe('attested adapter', () => {
  const claim = keccak256(stringToHex('claim 1'))
  const attestedOrder = async (params: Hex) => signed(devnet, allocationOrder(devnet, { adapter: devnet.manifest.contracts.attestedAdapter, params }))

  test('BadAttestation(): attested by someone other than the attestor', async () => {
    const params = await attestationParams(devnet, { consumer: devnetAccounts.consumer.address, claim, notAfter: (await chainTime(devnet)) + 3600n, signer: spare })
    const { status, body } = await postWithoutGas(await attestedOrder(params))
    expect({ status, body }).toEqual(wouldRevert('would revert: BadAttestation()', customRevert('AttestedAdapter', attestedAdapterAbi, 'BadAttestation')))
  })

  test('AttestationExpired(): notAfter has passed', async () => {
    const params = await attestationParams(devnet, { consumer: devnetAccounts.consumer.address, claim, notAfter: (await chainTime(devnet)) - 1n })
    const { status, body } = await postWithoutGas(await attestedOrder(params))
    expect({ status, body }).toEqual(wouldRevert('would revert: AttestationExpired()', customRevert('AttestedAdapter', attestedAdapterAbi, 'AttestationExpired')))
  })

  test('a good attestation settles once (AttestedGranted); reusing it is AttestationUsed()', async () => {
    const params = await attestationParams(devnet, { consumer: devnetAccounts.consumer.address, claim, notAfter: (await chainTime(devnet)) + 3600n })
    const first = await attestedOrder(params)
    exposure.request(first)
    const settled = await relayer.post(first)
    expect(settled.status).toBe(200)
    expect(settled.body.receipt).toEqual({
      adapter: 'attested',
      event: 'AttestedGranted',
      fields: { orderHash: first.orderHash, consumer: devnetAccounts.consumer.address, claim },
    })
    const { status, body } = await postWithoutGas(await attestedOrder(params))
    expect({ status, body }).toEqual(wouldRevert('would revert: AttestationUsed()', customRevert('AttestedAdapter', attestedAdapterAbi, 'AttestationUsed')))
  })
})

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.counts.bodies).toBeGreaterThan(15)
  expect(exposure.leaks()).toEqual([])
  const log = relayer.accessLog()
  expect(log.access).toEqual(log.expected)
  for (const line of log.access) expect(line).toMatch(accessLinePattern)
})
