// Settlement throughput: N pre-signed orders from C concurrent clients through the
// relayer executable's POST /broker, against the same kind of pre-signed broker()
// transactions sent straight to a fresh anvil by C senders with local nonces.
import { type Hex, keccak256, parseGwei, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { brokeredEvent } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { brokerCalldata, presignOrders } from './lib/orders.ts'
import { scratchJournal } from './lib/journal.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { type Row, row } from './lib/report.ts'
import { rpc } from './lib/rpc.ts'
import { forEachConcurrently, sleep } from './lib/stats.ts'

export type SettlementOptions = { orders: number; clients: number }

/** The baseline's senders: one key per client, funded on each fresh devnet. */
const senderKeys = (count: number): Hex[] => Array.from({ length: count }, (_, i) => keccak256(stringToHex(`order-relay bench sender ${i}`)))

const startBenchDevnet = (orders: number) => startDevnet({ vaults: [{ vaultId: 1n, slots: orders + 100 }] })

/** Each orderHash's Brokered logs on the devnet: how many settled, how many twice. */
async function settledCount(devnet: Devnet, requests: readonly RelayRequest[]) {
  const logs = await devnet.publicClient.getLogs({ address: devnet.manifest.contracts.broker, event: brokeredEvent, fromBlock: 0n })
  const seen = new Map<string, number>()
  for (const log of logs) seen.set(log.args.orderHash!.toLowerCase(), (seen.get(log.args.orderHash!.toLowerCase()) ?? 0) + 1)
  const settled = requests.filter((request) => seen.get(request.orderHash!.toLowerCase()) === 1).length
  const twice = [...seen.values()].filter((count) => count > 1).length
  return { settled, twice }
}

/** Pre-signs every baseline transaction: sender `i % clients`, local nonces from 0. */
async function presignTransactions(devnet: Devnet, requests: readonly RelayRequest[], clients: number) {
  const accounts = senderKeys(clients).map((key) => privateKeyToAccount(key))
  const broker = devnet.manifest.contracts.broker
  const probe = accounts[0]!.address
  await devnet.testClient.setBalance({ address: probe, value: 10n ** 22n })
  const estimate = await devnet.publicClient.estimateGas({ account: probe, to: broker, data: brokerCalldata(requests[0]!) })
  // The relayer's own padding of its cached gas limit.
  const gas = (estimate * 13n) / 10n + 25_000n
  const perSender: Hex[][] = accounts.map(() => [])
  for (const [index, request] of requests.entries()) {
    const sender = index % clients
    const account = accounts[sender]!
    perSender[sender]!.push(
      await account.signTransaction({
        type: 'eip1559',
        chainId: devnet.chainId,
        nonce: perSender[sender]!.length,
        to: broker,
        data: brokerCalldata(request),
        gas,
        maxFeePerGas: parseGwei('50'),
        maxPriorityFeePerGas: parseGwei('1'),
      }),
    )
  }
  return { addresses: accounts.map((account) => account.address), perSender }
}

/**
 * Sends `raw` and waits for its receipt (polled at once, then every 20 ms: polling
 * faster only loads anvil). With `simulate`, first the `eth_call` a relayer must make
 * (SPEC.md 4.3 step 5), so the gap it leaves can be told from the relayer's own cost.
 */
async function sendAndConfirm(url: string, raw: Hex, simulate?: { from: Hex; to: Hex; data: Hex }): Promise<void> {
  if (simulate) await rpc(url, 'eth_call', [simulate, 'latest'])
  const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [raw])
  for (;;) {
    const receipt = await rpc<{ status: Hex } | null>(url, 'eth_getTransactionReceipt', [hash])
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`baseline tx ${hash} reverted`)
      return
    }
    await sleep(20)
  }
}

async function baselineRun(options: SettlementOptions, requests: readonly RelayRequest[], txs: Awaited<ReturnType<typeof presignTransactions>>, simulate = false) {
  const devnet = await startBenchDevnet(options.orders)
  try {
    for (const address of txs.addresses) await devnet.testClient.setBalance({ address, value: 10n ** 22n })
    let errors = 0
    const broker = devnet.manifest.contracts.broker
    const started = performance.now()
    await Promise.all(
      txs.perSender.map(async (list, sender) => {
        for (const [index, raw] of list.entries()) {
          const call = simulate ? { from: txs.addresses[sender]!, to: broker, data: brokerCalldata(requests[index * options.clients + sender]!) } : undefined
          await sendAndConfirm(devnet.rpcUrl, raw, call).catch(() => errors++)
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const { settled, twice } = await settledCount(devnet, requests)
    return { perSecond: requests.length / seconds, settled, twice, errors }
  } finally {
    await devnet.stop()
  }
}

async function relayerRun(context: BenchContext, options: SettlementOptions, requests: readonly RelayRequest[]) {
  const devnet = await startBenchDevnet(options.orders)
  const journal = scratchJournal()
  let child: Child | undefined
  try {
    const port = await freePort()
    child = spawnChild(
      [context.exe, 'relayer'],
      childEnv({
        RELAYER_PK: devnetAccounts.relayer.privateKey,
        RELAYER_CHAIN_ID: String(devnet.chainId),
        RELAYER_RPC_URL: devnet.rpcUrl,
        RELAYER_BROKER: devnet.manifest.contracts.broker,
        RELAYER_PORT: String(port),
        RELAYER_DB: journal.path,
        ...context.relayerEnv,
      }),
      { count: /nonce/i },
    )
    const url = `http://127.0.0.1:${port}`
    await waitForOk(`${url}/info`, { child })
    const statuses = new Map<number, number>()
    const started = performance.now()
    await forEachConcurrently(requests, options.clients, async (request) => {
      const response = await fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    })
    const seconds = (performance.now() - started) / 1000
    const rssMiB = child.rssMiB()
    const { settled, twice } = await settledCount(devnet, requests)
    const nonceErrors = child.counted
    const non200 = requests.length - (statuses.get(200) ?? 0)
    return { perSecond: requests.length / seconds, settled, twice, nonceErrors, non200, statuses, rssMiB, peakRssMiB: child.peakRssMiB() }
  } finally {
    await child?.stop()
    await devnet.stop()
    journal.remove()
  }
}

/**
 * Runs both sides `context.runs` times, alternating which goes first, each on a
 * fresh devnet. Returns the throughput row and the relayer's memory after the run.
 */
export async function benchSettlement(context: BenchContext, options: SettlementOptions): Promise<{ row: Row; simulatedRow: Row; rssMiB: number; peakRssMiB: number }> {
  const setup = await startBenchDevnet(options.orders)
  let requests: RelayRequest[]
  let txs: Awaited<ReturnType<typeof presignTransactions>>
  try {
    context.log(`settlement: signing ${options.orders} orders and ${options.orders} baseline transactions`)
    requests = await presignOrders(setup, options.orders, { label: 'settlement' })
    txs = await presignTransactions(setup, requests, options.clients)
  } finally {
    await setup.stop()
  }
  const subject: number[] = []
  const baseline: number[] = []
  const simulated: number[] = []
  const failed = new Set<string>()
  let totals = { settled: 0, twice: 0, nonceErrors: 0, non200: 0, baselineErrors: 0 }
  let memory = { rssMiB: 0, peakRssMiB: 0 }
  for (let run = 0; run < context.runs; run++) {
    const sides = run % 2 === 0 ? (['baseline', 'relayer', 'simulated'] as const) : (['simulated', 'relayer', 'baseline'] as const)
    for (const side of sides) {
      if (side === 'simulated') {
        const result = await baselineRun(options, requests, txs, true)
        simulated.push(result.perSecond)
        totals.baselineErrors += result.errors
        context.log(`settlement run ${run + 1}: baseline with eth_call first ${result.perSecond.toFixed(0)} orders/s`)
      } else if (side === 'baseline') {
        const result = await baselineRun(options, requests, txs)
        baseline.push(result.perSecond)
        totals.baselineErrors += result.errors
        if (result.settled !== requests.length) failed.add(`baseline settled ${result.settled}/${requests.length}`)
        context.log(`settlement run ${run + 1}: baseline ${result.perSecond.toFixed(0)} orders/s`)
      } else {
        const result = await relayerRun(context, options, requests)
        subject.push(result.perSecond)
        totals = { ...totals, settled: totals.settled + result.settled, twice: totals.twice + result.twice, nonceErrors: totals.nonceErrors + result.nonceErrors, non200: totals.non200 + result.non200 }
        memory = { rssMiB: result.rssMiB, peakRssMiB: result.peakRssMiB }
        context.log(`settlement run ${run + 1}: relayer ${result.perSecond.toFixed(0)} orders/s, statuses ${JSON.stringify(Object.fromEntries(result.statuses))}`)
      }
    }
  }
  const expected = requests.length * context.runs
  if (totals.settled !== expected) failed.add(`settled ${totals.settled}/${expected}`)
  if (totals.twice) failed.add(`${totals.twice} orders settled twice`)
  if (totals.nonceErrors) failed.add(`${totals.nonceErrors} nonce errors`)
  if (totals.non200) failed.add(`${totals.non200} answers were not 200`)
  if (totals.baselineErrors) failed.add(`${totals.baselineErrors} baseline transactions failed`)
  return {
    simulatedRow: row({
      name: 'settlement, same, baseline simulating first',
      unit: 'orders/s',
      subjectName: 'POST /broker',
      baselineName: 'pre-signed txs, eth_call before each',
      subject,
      baseline: simulated,
    }),
    row: row({
      name: `settlement, ${options.orders} orders, ${options.clients} clients`,
      unit: 'orders/s',
      subjectName: 'POST /broker',
      baselineName: 'pre-signed txs to anvil',
      subject,
      baseline,
      target: { op: '>=', value: 0.7 },
      checks: { settled: `${totals.settled}/${expected}`, 'settled twice': totals.twice, 'nonce errors': totals.nonceErrors, 'non-200': totals.non200 },
      failedChecks: [...failed],
    }),
    ...memory,
  }
}
