// Batched simulation at `pending` (src/relayer/simulation): under load, orders that
// arrive while the node is busy with earlier simulations share one eth_call (BatchSimulator
// put at the relayer's address by a state override). Each order must get exactly the
// answer its own call would have given, the pending state (the key's pooled txs) must
// still count, and a node that refuses state overrides must still get right answers.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { decodeRevert, encodeBrokerCall, errorAbis, extractRevertData, isRevertError } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { minimumGasLimit } from '../../src/chain/index.ts'
import { createPendingSimulator, type Simulation } from '../../src/relayer/simulation/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { type RpcCall, startFlakyRpc } from './support/flakyRpc.ts'

let devnet: Devnet
let flaky: ReturnType<typeof startFlakyRpc>

beforeAll(async () => {
  devnet = await startDevnet({ vaults: [{ vaultId: 1n, slots: 1000 }, { vaultId: 2n, slots: 1 }, { vaultId: 3n, slots: 1000 }] })
  flaky = startFlakyRpc(devnet.rpcUrl)
}, 60_000)
afterAll(async () => {
  flaky?.stop()
  await devnet?.stop()
})

const relayerAddress = devnetAccounts.relayer.address as Address
const isBatch = (call: RpcCall) => call.method === 'eth_call' && call.params.length > 2
const fees = async () => {
  const block = await devnet.publicClient.getBlock()
  return { maxFeePerGas: block.baseFeePerGas! * 2n + 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }
}

/** What a simulation result means to the relayer: passes, reverts with this reason, or "find its own gas limit". */
function meaning(simulation: Simulation): string {
  if (simulation.passed) return 'passes'
  const result = simulation.error
  const data = extractRevertData(result)
  if (data && data.length >= 10) return decodeRevert(data, errorAbis).text
  return isRevertError(result) || /gas/i.test(String((result as Error).message)) ? 'own gas limit' : `other: ${(result as Error).message}`
}

describe('a batch answers each order as its own call would', () => {
  test('passing, reverting and out-of-gas orders in one batch', async () => {
    const simulator = createPendingSimulator({ client: devnet.publicClient, address: relayerAddress, broker: devnet.manifest.contracts.broker as Address, logger: createMemoryLogger(), maxInFlight: 1 })
    const good = await signed(devnet, allocationOrder(devnet))
    const feeTooHigh = await signed(devnet, allocationOrder(devnet, { feeBps: 10_001 }))
    const badSignature: RelayRequest = { ...good, order: { ...good.order, amount: '11000000' } }
    const soldOut = await signed(devnet, allocationOrder(devnet, { params: vaultParams(99n) }))
    const cases: Array<{ request: RelayRequest; gas: bigint }> = [
      { request: good, gas: 400_000n },
      { request: feeTooHigh, gas: 400_000n },
      { request: badSignature, gas: 400_000n },
      { request: soldOut, gas: 400_000n },
      // Enough for the calldata, far too little for the call: out of gas.
      { request: good, gas: minimumGasLimit(encodeBrokerCall(good)) + 5_000n },
      // Under the calldata cost: the node would not take the transaction at all.
      { request: good, gas: 21_000n },
    ]
    const fee = await fees()
    const alone = await Promise.all(cases.map(({ request, gas }) => simulator.callAlone(encodeBrokerCall(request), gas, fee)))
    // One order first, alone at the node; every other order waits for it and goes in one batch.
    const together = await Promise.all([good, ...cases.map(({ request }) => request)].map((request, index) =>
      simulator.call(encodeBrokerCall(request), index === 0 ? 400_000n : cases[index - 1]!.gas, fee)))
    expect(together.slice(1).map(meaning)).toEqual(alone.map(meaning))
    expect(alone.map(meaning).slice(0, 5)).toEqual(['passes', 'FeeTooHigh()', expect.stringMatching(/invalid signature/i), expect.stringMatching(/^VaultUnknown|sold out|SoldOut/i), 'own gas limit'])
    expect(simulator.counts.batches).toBe(1)
  })
})

describe('calls at the node at once', () => {
  // On 0.25 s blocks a block's burst went through its batches one after another and
  // reached the pool after the next block; two calls at once bring it within the block.
  test('a burst has two simulation calls at the node at once, and each order gets its own answer', async () => {
    let atNode = 0
    let most = 0
    const client = devnet.publicClient
    // The real client and node; only counted on the way.
    const counted = new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'call') return Reflect.get(target, property, receiver)
        return async (...args: Parameters<typeof client.call>) => {
          most = Math.max(most, ++atNode)
          try {
            return await client.call(...args)
          } finally {
            atNode--
          }
        }
      },
    })
    const simulator = createPendingSimulator({ client: counted, address: relayerAddress, broker: devnet.manifest.contracts.broker as Address, logger: createMemoryLogger() })
    const good = await Promise.all(Array.from({ length: 12 }, () => signed(devnet, allocationOrder(devnet, { params: vaultParams(3n) }))))
    const feeTooHigh = await signed(devnet, allocationOrder(devnet, { feeBps: 10_001 }))
    const fee = await fees()
    const answers = await Promise.all([...good, feeTooHigh].map((request) => simulator.call(encodeBrokerCall(request), 400_000n, fee)))
    expect(answers.map(meaning)).toEqual([...good.map(() => 'passes'), 'FeeTooHigh()'])
    expect(most).toBe(2)
    expect(simulator.counts.batches).toBeGreaterThan(0)
  })
})

describe('the relayer under load', () => {
  test('concurrent orders on an interval-mined chain share simulations and every answer is right', async () => {
    flaky.calls.length = 0
    const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: flaky.url } })
    try {
      // Warm the relayer (gas limit, fees, clock), then blocks every second so txs stay pooled.
      expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
      await devnet.testClient.setAutomine(false)
      await devnet.testClient.setIntervalMining({ interval: 1 })
      const nonceBefore = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
      // The last slot of vault 2 is taken by a tx still in the pool: orders for it must be refused at `pending`.
      const lastSlot = relayer.post(await signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) })))
      await waitFor('the last slot of vault 2 in the pool', async () => (await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' })) > nonceBefore)
      const good = await Promise.all(Array.from({ length: 24 }, () => signed(devnet, allocationOrder(devnet, { params: vaultParams(3n) }))))
      const late = await Promise.all(Array.from({ length: 6 }, () => signed(devnet, allocationOrder(devnet, { params: vaultParams(2n) }))))
      const tooHigh = await Promise.all(Array.from({ length: 4 }, () => signed(devnet, allocationOrder(devnet, { feeBps: 10_001 }))))
      const answers = await Promise.all([...good, ...late, ...tooHigh].map((request) => relayer.post(request)))
      expect((await lastSlot).status).toBe(200)
      expect(answers.slice(0, 24).map((answer) => answer.status)).toEqual(good.map(() => 200))
      for (const answer of answers.slice(24, 30)) expect({ status: answer.status, code: answer.body.code, message: answer.body.message }).toEqual({ status: 422, code: 'WOULD_REVERT', message: expect.stringMatching(/SoldOut/) })
      for (const answer of answers.slice(30)) expect(answer.body).toEqual({ ok: false, code: 'WOULD_REVERT', message: 'would revert: FeeTooHigh()', revert: { contract: 'Broker', name: 'FeeTooHigh', args: {}, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]+$/) } })
      expect(flaky.calls.filter(isBatch).length).toBeGreaterThan(0)
      // Money: one tx per order that settled, none for the refused ones, none reverted.
      await waitFor('the pool to drain', async () => (await devnet.publicClient.getTransactionCount({ address: relayerAddress })) === nonceBefore + 25)
      expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' })).toBe(nonceBefore + 25)
      const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
      for (let block = latest - 10n; block <= latest; block++) {
        const receipts = (await devnet.publicClient.request({ method: 'eth_getBlockReceipts', params: [`0x${block.toString(16)}` as Hex] })) as Array<{ from: string; status: Hex }>
        expect(receipts.filter((receipt) => receipt.from.toLowerCase() === relayerAddress.toLowerCase() && receipt.status !== '0x1')).toEqual([])
      }
    } finally {
      await devnet.testClient.setAutomine(true)
      await relayer.stop()
    }
  }, 60_000)

  test('a node that refuses state overrides: one call per order from then on, and a warning', async () => {
    flaky.calls.length = 0
    flaky.refuseWhen(isBatch, 'state override is not supported')
    const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: flaky.url } })
    try {
      expect((await relayer.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
      const orders = await Promise.all(Array.from({ length: 12 }, () => signed(devnet, allocationOrder(devnet))))
      const tooHigh = await signed(devnet, allocationOrder(devnet, { feeBps: 10_001 }))
      const answers = await Promise.all([...orders, tooHigh].map((request) => relayer.post(request)))
      expect(answers.map((answer) => answer.status)).toEqual([...orders.map(() => 200), 422])
      expect(answers.at(-1)!.body.message).toBe('would revert: FeeTooHigh()')
      // Two simulation calls may be at the node at once, so a second batch may be on its
      // way before the first is refused; the warning is said once all the same.
      const batches = flaky.calls.filter(isBatch).length
      expect(batches).toBeGreaterThanOrEqual(1)
      expect(batches).toBeLessThanOrEqual(2)
      const warnings = relayer.logger.lines.filter((line) => line.includes('batched simulation is off'))
      expect(warnings).toEqual([expect.stringMatching(/batched simulation is off: the node refused an eth_call with a state override \(.*state override is not supported/)])
      // Later load: no batch is tried again.
      await Promise.all(Array.from({ length: 6 }, async () => relayer.post(await signed(devnet, allocationOrder(devnet)))))
      expect(flaky.calls.filter(isBatch).length).toBe(batches)
    } finally {
      flaky.heal()
      await relayer.stop()
    }
  }, 60_000)
})
