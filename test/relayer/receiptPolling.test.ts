// Waiting for a receipt: polled at once, then after delays growing from an eighth of
// RELAYER_RECEIPT_POLL_MS up to it. A chain that mines in tens of milliseconds answers
// in tens of milliseconds (a fixed 250 ms sleep after the first miss held every order
// a quarter second and capped the settlement benchmark's 32 clients near 125
// orders/s), and a slow one is never polled more often than the schedule says.
import { expect, test } from 'bun:test'
import type { PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { createSubmitter } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

const hash = `0x${'ab'.repeat(32)}` as const
const rawReceipt = {
  transactionHash: hash,
  transactionIndex: '0x0',
  blockHash: `0x${'cd'.repeat(32)}`,
  blockNumber: '0x10',
  from: devnetAccounts.relayer.address.toLowerCase(),
  to: `0x${'11'.repeat(20)}`,
  cumulativeGasUsed: '0x5208',
  gasUsed: '0x5208',
  effectiveGasPrice: '0x1',
  contractAddress: null,
  logs: [],
  logsBloom: `0x${'00'.repeat(256)}`,
  status: '0x1',
  type: '0x2',
}

/** A node whose receipt for `hash` appears `afterMs` after the first poll. */
function node(afterMs: number) {
  const polls: number[] = []
  let first: number | undefined
  const client = {
    request: async ({ method }: { method: string }) => {
      if (method !== 'eth_getTransactionReceipt') throw new Error(`unexpected ${method}`)
      const now = performance.now()
      first ??= now
      polls.push(now - first)
      return now - first >= afterMs ? rawReceipt : null
    },
  } as unknown as PublicClient
  return { client, polls }
}

const submitterFor = (client: PublicClient, receiptPollMs: number) =>
  createSubmitter({
    client,
    account: privateKeyToAccount(devnetAccounts.relayer.privateKey),
    chainId: 421614,
    logger: createMemoryLogger(),
    receiptTimeoutMs: 10_000,
    receiptPollMs,
  })

test('a receipt that appears after 40 ms is found in at most four polls with the default 250 ms interval', async () => {
  const { client, polls } = node(40)
  const receipt = await submitterFor(client, 250).waitForReceipt(hash)
  expect(receipt.transactionHash).toBe(hash)
  // 0, ~32, ~96 ms: three polls.
  expect(polls.length).toBeLessThanOrEqual(4)
})

test('a slow receipt: delays double up to the interval and stay there', async () => {
  const { client, polls } = node(1_200)
  await submitterFor(client, 250).waitForReceipt(hash)
  const gaps = polls.slice(1).map((at, i) => at - polls[i]!)
  // 32, 63, 125, 250, 250, … ms (timers may run a little late, never early).
  expect(gaps.length).toBeGreaterThanOrEqual(6)
  expect(gaps.length).toBeLessThanOrEqual(9)
  for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(Math.min(32 * 2 ** i, 250) - 2)
})
