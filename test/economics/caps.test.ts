// The operator's caps, which no order can make the gas key pass:
// RELAYER_MAX_FEE_PER_GAS_WEI (no tx, replacement or filler is signed above it; while the
// chain's base fee is over it, new orders are refused and pending txs wait) and
// RELAYER_MAX_SPEND_WEI_PER_HOUR (the sliding hour's spending, mined and pending, stops new
// orders until it falls). Real anvil: the base fee is set with anvil_setNextBlockBaseFeePerGas.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, type Hex, parseGwei } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { type Answer, expectMoneySafe, txsFrom } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
let startingBaseFee: bigint

beforeAll(async () => {
  devnet = await startDevnet()
  startingBaseFee = (await devnet.publicClient.getBlock()).baseFeePerGas!
}, 60_000)
afterEach(async () => {
  await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: startingBaseFee })
  await devnet.testClient.setAutomine(true)
  await devnet.testClient.mine({ blocks: 1 })
})
afterAll(async () => {
  await devnet?.stop()
})

const ready = async (relayer: TestRelayer) => {
  const response = await fetch(`${relayer.url}/ready`)
  return { status: response.status, body: (await response.json()) as { ready: boolean; reason?: string } }
}

/** The fee caps of every tx the key sent since `fromBlock`, mined or pooled. */
async function feeCapsSent(key: Address, fromBlock: bigint): Promise<bigint[]> {
  const mined = await txsFrom(devnet, key, fromBlock)
  const caps = await Promise.all(mined.map(async ({ hash }) => (await devnet.publicClient.getTransaction({ hash })).maxFeePerGas!))
  const pool = await devnet.testClient.getTxpoolContent()
  const pooled = Object.entries(pool.pending).find(([address]) => address.toLowerCase() === key.toLowerCase())?.[1] ?? {}
  return [...caps, ...Object.values(pooled).map((tx) => BigInt(tx.maxFeePerGas!))]
}

describe('RELAYER_MAX_FEE_PER_GAS_WEI', () => {
  const cap = parseGwei('5')
  const key = devnetAccounts.relayer.address as Address
  let relayer: TestRelayer
  let fromBlock: bigint
  const answers: Answer[] = []

  beforeAll(async () => {
    relayer = await startTestRelayer(devnet, { env: { RELAYER_MAX_FEE_PER_GAS_WEI: String(cap) } })
    fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  })
  afterAll(async () => {
    await relayer?.stop()
  })

  const post = async (feeBps = 50) => {
    const request = await signed(devnet, allocationOrder(devnet, { feeBps }))
    const answer = await relayer.post(request)
    answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
    return answer
  }

  test('under the cap: orders settle, signed at or below it', async () => {
    expect((await post()).status).toBe(200)
    expect(relayer.logger.lines).toContain(`gas caps: no tx signed over ${cap} wei per gas (RELAYER_MAX_FEE_PER_GAS_WEI)`)
  })

  test('a base fee over the cap: new orders 503 saying so, /ready fails with the reason; they settle again once it falls', async () => {
    await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('8') })
    await devnet.testClient.mine({ blocks: 1 })
    const refused = await post()
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 503,
      body: {
        ok: false,
        code: 'INSUFFICIENT_RELAYER_GAS',
        message: expect.stringMatching(new RegExp(`^the chain's gas price \\(base fee \\d+ wei\\) is over this relayer's cap of ${cap} wei \\(RELAYER_MAX_FEE_PER_GAS_WEI\\); it takes orders again when the price falls; retry later or try another relayer$`)),
      },
    })
    const notReady = await ready(relayer)
    expect(notReady.status).toBe(503)
    expect(notReady.body.reason).toMatch(new RegExp(`^the chain's base fee \\(\\d+ wei\\) is over this relayer's cap of ${cap} wei \\(RELAYER_MAX_FEE_PER_GAS_WEI\\): new orders are refused until it falls$`))
    await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: startingBaseFee })
    await devnet.testClient.mine({ blocks: 1 })
    expect((await post()).status).toBe(200)
    await waitFor('/ready to pass again', async () => (await ready(relayer)).status === 200)
  })

  test('a pending tx priced out by a base fee over the cap is replaced up to the cap and no further: it waits, and settles once the fee falls', async () => {
    await devnet.testClient.setAutomine(false)
    const nonce = await devnet.publicClient.getTransactionCount({ address: key })
    // A fee worth its gas at the cap, so that a replacement up to the cap still pays for itself.
    const answer = post(1_000)
    await waitFor('the order pooled', async () => (await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) > nonce)
    await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('8') })
    await devnet.testClient.mine({ blocks: 1 })
    // anvil drops a tx the base fee priced out: it is sent again, refused as underpriced, replaced up to the cap, then waits.
    const waiting = /^warn: tx 0x[0-9a-f]{64} (is priced out of blocks \(the base fee rose above its fee cap\)|was refused as underpriced when sent again), but a replacement would pass RELAYER_MAX_FEE_PER_GAS_WEI \(5000000000 wei\); it waits for the base fee to fall$/
    await waitFor('the keeper to stop at the cap', () => relayer.logger.lines.some((line) => waiting.test(line)), 15_000)
    for (const each of await feeCapsSent(key, fromBlock)) expect(each).toBeLessThanOrEqual(cap)
    await devnet.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: startingBaseFee })
    await devnet.testClient.mine({ blocks: 1 })
    await devnet.testClient.setAutomine(true)
    expect((await answer).status).toBe(200)
  }, 30_000)

  test('money: every tx at or under the cap, nothing settled twice, nothing reverted', async () => {
    for (const each of await feeCapsSent(key, fromBlock)) expect(each).toBeLessThanOrEqual(cap)
    await expectMoneySafe(devnet, { key, fromBlock, settle: answers.filter((a) => a.status === 200).map((a) => a.orderHash), answers })
  })
})

describe('RELAYER_MAX_SPEND_WEI_PER_HOUR', () => {
  const key = devnetAccounts.secondRelayer.address as Address
  let relayer: TestRelayer
  let fromBlock: bigint
  const answers: Answer[] = []
  // Four orders' worth of gas at the devnet's prices, over a window shortened to 8 s (an hour outside tests).
  const cap = 600_000_000_000_000n

  beforeAll(async () => {
    relayer = await startTestRelayer(devnet, {
      env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey, RELAYER_MAX_SPEND_WEI_PER_HOUR: String(cap) },
      overrides: { economics: { spendWindowMs: 8_000 } },
    })
    fromBlock = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
  })
  afterAll(async () => {
    await relayer?.stop()
  })

  test('orders settle until the spending (mined, and the worst case of what is pending) would pass the cap; then 503 and /ready says so; once the window rolls on, orders settle again', async () => {
    let refused: Awaited<ReturnType<TestRelayer['post']>> | undefined
    let settled = 0
    for (let i = 0; i < 20 && !refused; i++) {
      const request = await signed(devnet, allocationOrder(devnet))
      const answer = await relayer.post(request)
      answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
      if (answer.status === 200) settled++
      else refused = answer
    }
    expect(settled).toBeGreaterThanOrEqual(2)
    expect({ status: refused?.status, code: refused?.body.code }).toEqual({ status: 503, code: 'INSUFFICIENT_RELAYER_GAS' })
    const parts = String(refused!.body.message).match(
      new RegExp(`^this relayer's gas spending cap is reached: (\\d+) wei spent in the last hour and (\\d+) wei held by pending txs, and this order may cost up to (\\d+) wei, over RELAYER_MAX_SPEND_WEI_PER_HOUR \\(${cap} wei\\); retry later or try another relayer$`),
    )
    expect(parts, String(refused!.body.message)).not.toBeNull()
    const [spent, held, worst] = parts!.slice(1).map(BigInt) as [bigint, bigint, bigint]
    expect(spent + held + worst).toBeGreaterThan(cap)
    expect(spent + held).toBeLessThanOrEqual(cap)
    // What the key spent is what the receipts say: each settled tx counted at its cost once its
    // receipt is read, and until then held at its worst case.
    const receipts = await Promise.all(answers.filter((a) => a.status === 200).map((a) => devnet.publicClient.getTransactionReceipt({ hash: a.body.txHash as Hex })))
    const paid = receipts.reduce((sum, receipt) => sum + receipt.gasUsed * receipt.effectiveGasPrice, 0n)
    expect(spent).toBeLessThanOrEqual(paid)
    expect(spent + held).toBeGreaterThanOrEqual(paid)
    const status = (await (await fetch(`${relayer.url}/status`)).json()) as { economics: { lastHour: { spentWei: string; capWei: string } } }
    // What /status says a moment later: at least what was spent then (receipts read since add to it), against the same cap.
    expect(status.economics.lastHour.capWei).toBe(String(cap))
    expect(BigInt(status.economics.lastHour.spentWei)).toBeGreaterThanOrEqual(spent)
    // /ready judges by what the key spent by now: the refusal counted mined txs whose receipts
    // were not read yet at their worst case, which their receipts may lower. Orders go on
    // (each settles or is refused, as the spending stands) until /ready says the cap is reached.
    await waitFor(
      '/ready to say the cap is reached',
      async () => {
        if ((await ready(relayer)).body.reason?.includes('RELAYER_MAX_SPEND_WEI_PER_HOUR')) return true
        const request = await signed(devnet, allocationOrder(devnet))
        const answer = await relayer.post(request)
        answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
        expect([200, 503]).toContain(answer.status)
        return false
      },
      10_000,
      50,
    )
    // The window rolls on: the early spending leaves it, and orders settle again.
    await waitFor(
      'an order settled again once the spending left the window',
      async () => {
        const request = await signed(devnet, allocationOrder(devnet))
        const answer = await relayer.post(request)
        answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
        return answer.status === 200
      },
      20_000,
      500,
    )
    expect((await ready(relayer)).status).toBe(200)
  }, 45_000)

  test('money: nothing settled twice, nothing reverted', async () => {
    await expectMoneySafe(devnet, { key, fromBlock, settle: answers.filter((a) => a.status === 200).map((a) => a.orderHash), answers })
  })
})
