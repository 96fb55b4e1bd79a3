// One settlement run of either side, on a fresh devnet: the relayer executable fed
// pre-signed orders through POST /broker, or the baseline sending pre-signed broker()
// transactions straight to anvil. Each run measures throughput, per-order latency and
// CPU (anvil's, and the relayer's), then checks the chain (outside the timed part).
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, manifestTokensVariable } from '../../../src/devnet/index.ts'
import { freePort } from '../../../src/shared/index.ts'
import { watchBlockReceipts } from './blockReceipts.ts'
import { revertedFrom, settledCount } from './chainChecks.ts'
import { type BenchContext, childEnv } from './context.ts'
import { busyShare, cpuSeconds, machineCpu, machineShares, relayerThreadCpu, type ThreadCpu, workCpu } from './cpu.ts'
import { brokerCalldata } from './orders.ts'
import { type Child, spawnChild, waitForOk } from './processes.ts'
import { rpc } from './rpc.ts'
import { startRpcCounter } from './rpcCounter.ts'
import { type SettlementWork, startChain } from './settlementWork.ts'
import { forEachConcurrently, percentile } from './stats.ts'

export type RunResult = {
  side: 'relayer' | 'baseline'
  perSecond: number
  /** Per order, from the request (or the baseline's eth_call) to its 200 (or its receipt), ms. */
  p50: number
  p99: number
  /** anvil's CPU seconds (user + system) per 1,000 orders, while the orders ran. */
  anvilCpuPer1000: number
  /** The relayer process's CPU seconds per 1,000 settled orders (relayer runs only). */
  relayerCpuPer1000?: number
  /** Relayer side: the same CPU split by thread (main, signer, JIT compiler, other), seconds per 1,000 settled orders. */
  relayerThreadsPer1000?: ThreadCpu
  /**
   * Relayer side, once warm: the relayer's and anvil's CPU over the orders answered after
   * the first quarter (the relayer's JIT compiling and the signer's warm-up fall mostly in
   * that quarter; a relayer in service has long paid them). Per 1,000 of those orders.
   */
  warm?: { relayerCpuPer1000: number; anvilCpuPer1000: number; threadsPer1000: ThreadCpu }
  /**
   * The run's own processes while the orders ran (anvil, the relayer, and the bench
   * process playing the clients): CPU seconds per 1,000 orders, and the share of all
   * cores they kept busy. A side that fills the cores can only go faster with less CPU
   * per order (see docs/benchmarks.md).
   */
  runCpuPer1000: number
  coresBusy: number
  /**
   * The whole machine while the orders ran (/proc/stat): the share of all cores busy,
   * every process included (a flood's and a probe's clients too), and the share the
   * hypervisor took for other guests (steal).
   */
  machine: { busy: number; steal: number }
  /** Orders with exactly one Brokered log, orderHashes with more than one. */
  settled: number
  twice: number
  /** Transactions from the sending key(s) that reverted. */
  reverted: number
  /** Relayer: answers other than 200. Baseline: transactions that failed to send or confirm. */
  failed: number
  /** Relayer: warning and error lines of its output about a nonce (a money-safety smell). */
  nonceErrors: number
  /** The first few of those lines, kept with the results (a failed check says which). */
  nonceLines?: readonly string[]
  statuses: Record<string, number>
  rssMiB?: number
  peakRssMiB?: number
  /** With `--count-rpc`: JSON-RPC calls per order by method, while the orders ran. */
  rpcPerOrder?: string
  /**
   * Replicas: the Redis round trips the replicas counted (their
   * order_relay_relayer_shared_state_round_trips_total, summed), by purpose, while the
   * orders ran.
   */
  redisRoundTrips?: Record<string, number>
}

/** The shared-state round trips a relayer counted so far, by purpose, read from its Prometheus listener. */
async function redisRoundTrips(metricsUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text()
  const counts: Record<string, number> = {}
  for (const match of text.matchAll(/^order_relay_relayer_shared_state_round_trips_total\{purpose="([a-z-]+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2])
  return counts
}

/** The difference of two readings of `redisRoundTrips`, summed over the replicas. */
function roundTripsBetween(before: readonly Record<string, number>[], after: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {}
  after.forEach((end, i) => {
    for (const [purpose, count] of Object.entries(end)) total[purpose] = (total[purpose] ?? 0) + count - (before[i]?.[purpose] ?? 0)
  })
  return total
}

/** The CPU each thread kind used between two readings, summed over the relayer processes. */
function threadsBetween(before: readonly ThreadCpu[], after: readonly ThreadCpu[]): ThreadCpu {
  return after.reduce<ThreadCpu>(
    (sum, end, i) => {
      const start = before[i]!
      return { main: sum.main + end.main - start.main, signer: sum.signer + end.signer - start.signer, jit: sum.jit + end.jit - start.jit, other: sum.other + end.other - start.other }
    },
    { main: 0, signer: 0, jit: 0, other: 0 },
  )
}

const perThousand = (split: ThreadCpu, orders: number): ThreadCpu => ({
  main: (split.main * 1000) / orders,
  signer: (split.signer * 1000) / orders,
  jit: (split.jit * 1000) / orders,
  other: (split.other * 1000) / orders,
})

type ReceiptWaiter = { wait(hash: Hex): Promise<Hex> }

/**
 * Sends `raw` and waits for its receipt from `waiter` (one eth_getBlockReceipts per
 * new block for every waiting sender). With `simulate`, first the `eth_call` a
 * relayer must make (SPEC.md 4.3 step 5).
 */
async function sendAndConfirm(url: string, raw: Hex, simulate: { from: Hex; to: Hex; data: Hex } | undefined, waiter: ReceiptWaiter): Promise<void> {
  if (simulate) await rpc(url, 'eth_call', [simulate, 'latest'])
  const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [raw])
  const status = await waiter.wait(hash)
  if (status !== '0x1') throw new Error(`baseline tx ${hash} reverted`)
}

/** The baseline: the pre-signed transactions, each sender's in nonce order, all senders at once. */
export async function baselineRun(context: BenchContext, work: SettlementWork, options: { simulate: boolean }): Promise<RunResult> {
  const { requests, txs } = work
  const devnet = await startChain(context, work.chain, requests.length)
  let counter: Awaited<ReturnType<typeof startRpcCounter>> | undefined
  try {
    for (const address of txs.addresses) await devnet.testClient.setBalance({ address, value: 10n ** 22n })
    const startBlock = BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
    counter = context.countRpc ? await startRpcCounter(devnet.rpcUrl) : undefined
    const url = counter?.url ?? devnet.rpcUrl
    const watcher = await watchBlockReceipts(url, devnet.rpcUrl.replace(/^http/, 'ws'))
    const broker = devnet.manifest.contracts.broker
    const latencies: number[] = []
    let failed = 0
    counter?.reset()
    const cpuBefore = cpuSeconds(devnet.anvilPid)
    const workBefore = workCpu([devnet.anvilPid])
    const machineBefore = machineCpu()
    const started = performance.now()
    await Promise.all(
      txs.perSender.map(async (list, sender) => {
        for (const [index, raw] of list.entries()) {
          const call = options.simulate ? { from: txs.addresses[sender]!, to: broker, data: brokerCalldata(requests[index * work.clients + sender]!) } : undefined
          const sentAt = performance.now()
          await sendAndConfirm(url, raw, call, watcher).then(
            () => latencies.push(performance.now() - sentAt),
            () => failed++,
          )
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const anvilCpu = cpuSeconds(devnet.anvilPid) - cpuBefore
    const runCpu = workCpu([devnet.anvilPid]) - workBefore
    const machine = machineShares(machineBefore, machineCpu())
    const rpcPerOrder = counter?.perOrder(requests.length)
    watcher.close()
    const { settled, twice } = await settledCount(devnet, requests)
    const reverted = await revertedFrom(devnet, txs.addresses, startBlock)
    return {
      side: 'baseline',
      perSecond: requests.length / seconds,
      p50: latencies.length ? percentile(latencies, 50) : Number.NaN,
      p99: latencies.length ? percentile(latencies, 99) : Number.NaN,
      anvilCpuPer1000: (anvilCpu * 1000) / requests.length,
      runCpuPer1000: (runCpu * 1000) / requests.length,
      coresBusy: busyShare(runCpu, seconds),
      machine,
      settled,
      twice,
      reverted,
      failed,
      nonceErrors: 0,
      statuses: {},
      rpcPerOrder,
    }
  } finally {
    counter?.stop()
    await devnet.stop()
  }
}

let relayerRuns = 0

/**
 * How long a run may go without any answer before it is given up: its unanswered
 * orders are then counted as failed (and fail the row) instead of hanging the bench, as
 * a server that does not recover from anvil's automine stall would (foundry-rs/foundry#10122).
 */
export const runStallMs = 60_000

/**
 * The relayer executable (default settings, a throw-away `RELAYER_DB` unless `env`
 * names one), fed every request by `work.clients` concurrent clients. `alongside`
 * starts other load once the relayer answers, just before the orders (it is given the
 * run's devnet too), and returns its stop function (awaited once the orders are done,
 * before the checks).
 * `replicas`: two relayer processes with their own gas keys sharing that Redis
 * (RELAYER_REDIS_URL), the requests dealt to them in turn as a load balancer would.
 * `command`: what starts the relayer process (default the executable's `relayer`).
 */
export async function relayerRun(
  context: BenchContext,
  work: SettlementWork,
  options: {
    env?: Record<string, string>
    alongside?: (url: string, devnet: Devnet) => Promise<() => Promise<void>>
    /** `metrics: false`: a server without the relayer's metrics listener (the least relayer): no round trips are read. */
    replicas?: { redisUrl: string; metrics?: false }
    /** Default `runStallMs`. */ stallMs?: number
    command?: string[]
    /** Filled, when given, with the wall-clock time (ms since epoch) each request was sent, by its index in `work.requests`. */
    sentAt?: number[]
  } = {},
): Promise<RunResult> {
  const { requests } = work
  const devnet = await startChain(context, work.chain, requests.length)
  const keys = options.replicas ? [devnetAccounts.relayer, devnetAccounts.secondRelayer] : [devnetAccounts.relayer]
  const children: Child[] = []
  // Replicas: each one's Prometheus listener, read before and after the orders for its Redis round trips.
  const metricsUrls: string[] = []
  let stopAlongside: (() => Promise<void>) | undefined
  let counter: Awaited<ReturnType<typeof startRpcCounter>> | undefined
  try {
    const startBlock = BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
    counter = context.countRpc ? await startRpcCounter(devnet.rpcUrl) : undefined
    const urls: string[] = []
    for (const key of keys) {
      const port = await freePort()
      const metricsPort = options.replicas && options.replicas.metrics !== false ? await freePort() : undefined
      if (metricsPort) metricsUrls.push(`http://127.0.0.1:${metricsPort}/metrics`)
      const child = spawnChild(
        options.command ?? [context.exe, 'relayer'],
        childEnv({
          RELAYER_PK: key.privateKey,
          RELAYER_CHAIN_ID: String(devnet.chainId),
          RELAYER_RPC_URL: counter?.url ?? devnet.rpcUrl,
          // New heads pushed over anvil's WebSocket, as the baseline's senders get them.
          RELAYER_WS_URL: devnet.rpcUrl.replace(/^http/, 'ws'),
          RELAYER_BROKER: devnet.manifest.contracts.broker,
          ...manifestTokensVariable(devnet.manifest),
          RELAYER_PORT: String(port),
          RELAYER_DB: join(context.dir, `relayer-${++relayerRuns}.db`),
          ...(options.replicas ? { RELAYER_REDIS_URL: options.replicas.redisUrl } : {}),
          ...(metricsPort ? { RELAYER_METRICS_PORT: String(metricsPort) } : {}),
          ...context.relayerEnv,
          ...options.env,
        }),
        // A warning or error about a nonce (text or JSON log lines); info lines may name nonces harmlessly.
        { count: /(\b(warn|error):|"level":"(warn|error)").*nonce/i, cwd: context.dir },
      )
      children.push(child)
      urls.push(`http://127.0.0.1:${port}`)
      await waitForOk(`${urls.at(-1)}/info`, { child })
    }
    const child = children[0]!
    stopAlongside = await options.alongside?.(urls[0]!, devnet)
    const statuses: Record<string, number> = {}
    const latencies: number[] = []
    counter?.reset()
    const relayerCpu = () => children.reduce((total, each) => total + cpuSeconds(each.pid), 0)
    const relayerCpuBefore = relayerCpu()
    const threads = () => children.map((each) => relayerThreadCpu(each.pid))
    const threadsBefore = threads()
    const anvilCpuBefore = cpuSeconds(devnet.anvilPid)
    const workPids = [devnet.anvilPid, ...children.map((each) => each.pid)]
    const workBefore = workCpu(workPids)
    const machineBefore = machineCpu()
    const roundTripsBefore = await Promise.all(metricsUrls.map(redisRoundTrips))
    // The warm part of the run: from the answer that ends its first quarter to the end.
    const warmAfter = Math.floor(requests.length / 4)
    let answered = 0
    let warmFrom: { relayer: number; anvil: number; threads: ThreadCpu[] } | undefined
    const started = performance.now()
    let answeredAt = started
    const stall = new AbortController()
    const stallMs = options.stallMs ?? runStallMs
    const watchdog = setInterval(
      () => {
        if (stall.signal.aborted || performance.now() - answeredAt < stallMs) return
        context.log(`no answer for ${stallMs / 1000} s from the server at ${urls[0]} (${answered} of ${requests.length} orders answered): the rest count as failed`)
        stall.abort()
      },
      Math.min(1_000, stallMs / 4),
    )
    try {
      await forEachConcurrently(requests, work.clients, async (request, index) => {
        const url = urls[index % urls.length]!
        const sentAt = performance.now()
        if (options.sentAt) options.sentAt[index] = performance.timeOrigin + sentAt
        // A dropped connection counts as an answer that is not 200 (and fails the row), not as the end of the run.
        const status = await fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request), signal: stall.signal }).then(
          async (response) => {
            await response.arrayBuffer()
            return String(response.status)
          },
          () => (stall.signal.aborted ? 'no answer (the run stalled)' : 'connection error'),
        )
        answeredAt = performance.now()
        if (status === '200') latencies.push(answeredAt - sentAt)
        statuses[status] = (statuses[status] ?? 0) + 1
        if (++answered === warmAfter) warmFrom = { relayer: relayerCpu(), anvil: cpuSeconds(devnet.anvilPid), threads: threads() }
      })
    } finally {
      clearInterval(watchdog)
    }
    const seconds = (performance.now() - started) / 1000
    const relayerCpuEnd = relayerCpu()
    const anvilCpuEnd = cpuSeconds(devnet.anvilPid)
    const threadsEnd = threads()
    const relayerCpuUsed = relayerCpuEnd - relayerCpuBefore
    const threadsUsed = threadsBetween(threadsBefore, threadsEnd)
    const anvilCpu = anvilCpuEnd - anvilCpuBefore
    const warmOrders = requests.length - warmAfter
    const runCpu = workCpu(workPids) - workBefore
    const machine = machineShares(machineBefore, machineCpu())
    const rpcPerOrder = counter?.perOrder(requests.length)
    const roundTrips = metricsUrls.length > 0 ? roundTripsBetween(roundTripsBefore, await Promise.all(metricsUrls.map(redisRoundTrips))) : undefined
    await stopAlongside?.()
    stopAlongside = undefined
    const rssMiB = child.rssMiB()
    // A nonce warning fails the row: say which, so it can be looked into.
    for (const each of children) for (const line of each.countedLines) context.log(`relayer printed a nonce warning: ${line}`)
    const { settled, twice } = await settledCount(devnet, requests)
    const reverted = await revertedFrom(
      devnet,
      keys.map((key) => key.address),
      startBlock,
    )
    return {
      side: 'relayer',
      perSecond: requests.length / seconds,
      p50: latencies.length ? percentile(latencies, 50) : Number.NaN,
      p99: latencies.length ? percentile(latencies, 99) : Number.NaN,
      anvilCpuPer1000: (anvilCpu * 1000) / requests.length,
      relayerCpuPer1000: settled ? (relayerCpuUsed * 1000) / settled : Number.NaN,
      relayerThreadsPer1000: settled ? perThousand(threadsUsed, settled) : undefined,
      warm:
        warmFrom && warmOrders > 0
          ? {
              relayerCpuPer1000: ((relayerCpuEnd - warmFrom.relayer) * 1000) / warmOrders,
              anvilCpuPer1000: ((anvilCpuEnd - warmFrom.anvil) * 1000) / warmOrders,
              threadsPer1000: perThousand(threadsBetween(warmFrom.threads, threadsEnd), warmOrders),
            }
          : undefined,
      runCpuPer1000: (runCpu * 1000) / requests.length,
      coresBusy: busyShare(runCpu, seconds),
      machine,
      settled,
      twice,
      reverted,
      failed: requests.length - (statuses['200'] ?? 0),
      nonceErrors: children.reduce((total, each) => total + each.counted, 0),
      nonceLines: children.flatMap((each) => each.countedLines),
      statuses,
      rssMiB,
      peakRssMiB: child.peakRssMiB(),
      rpcPerOrder,
      ...(roundTrips ? { redisRoundTrips: roundTrips } : {}),
    }
  } finally {
    await stopAlongside?.().catch(() => {})
    for (const each of children) await each.stop()
    counter?.stop()
    await devnet.stop()
  }
}

/**
 * The checks every settlement row prints: over all runs of both
 * sides, settled once, none twice, no reverted transaction from the sending key(s),
 * no failed answer or transaction, no nonce error; a failed check fails the row.
 */
export function settlementChecks(subject: readonly RunResult[], baseline: readonly RunResult[], ordersPerRun: number) {
  const all = [...subject, ...baseline]
  const sum = (pick: (run: RunResult) => number, runs: readonly RunResult[] = all) => runs.reduce((total, run) => total + pick(run), 0)
  const expected = ordersPerRun * all.length
  const settled = sum((run) => run.settled)
  const twice = sum((run) => run.twice)
  const reverted = sum((run) => run.reverted)
  const non200 = sum((run) => run.failed, all.filter((run) => run.side === 'relayer'))
  const baselineFailed = sum((run) => run.failed, all.filter((run) => run.side === 'baseline'))
  const nonceErrors = sum((run) => run.nonceErrors)
  const failedChecks: string[] = []
  if (settled !== expected) failedChecks.push(`settled ${settled}/${expected}`)
  if (twice) failedChecks.push(`${twice} orders settled twice`)
  if (reverted) failedChecks.push(`${reverted} reverted txs from the key`)
  if (non200) failedChecks.push(`${non200} answers were not 200`)
  if (baselineFailed) failedChecks.push(`${baselineFailed} baseline transactions failed`)
  // The relayer's own words go with the result: a run's output is not kept anywhere else.
  if (nonceErrors) failedChecks.push(`${nonceErrors} nonce errors (${all.flatMap((run) => run.nonceLines ?? []).slice(0, 3).join(' | ')})`)
  return {
    checks: { settled: `${settled}/${expected}`, 'settled twice': twice, reverted, 'non-200': non200, 'nonce errors': nonceErrors },
    failedChecks,
  }
}

/** With `--count-rpc`, the calls per order of each side's last run, for a chain-work row's checks. */
export function rpcChecks(subject: readonly RunResult[], baseline: readonly RunResult[]): Record<string, string> {
  const [mine, theirs] = [subject.at(-1)?.rpcPerOrder, baseline.at(-1)?.rpcPerOrder]
  return mine === undefined ? {} : { 'RPC calls per order, subject': mine, baseline: theirs ?? '' }
}

/**
 * The runs' CPU on both sides (medians over runs), and what it allows: when the
 * baseline kept a share `b` of all cores busy using `B` CPU seconds per 1,000 orders, and
 * the subject needs `A`, the subject cannot reach more than (B / A) / b of the baseline's
 * throughput on the same cores, whatever it does with its time.
 */
export function cpuBoundChecks(subject: readonly RunResult[], baseline: readonly RunResult[]): Record<string, string> {
  const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
  const a = mid(subject.map((run) => run.runCpuPer1000))
  const b = mid(baseline.map((run) => run.runCpuPer1000))
  const share = (runs: readonly RunResult[]) => `${Math.round(mid(runs.map((run) => run.coresBusy)) * 100)}%`
  const bound = b / a / mid(baseline.map((run) => run.coresBusy))
  return {
    'CPU of the run per 1000 orders, subject': `${a.toFixed(2)} s (cores ${share(subject)} busy)`,
    baseline: `${b.toFixed(2)} s (cores ${share(baseline)} busy)`,
    'CPU-bound ratio': bound.toFixed(2),
  }
}

/** Where the relayer's CPU went, by thread: the medians over the relayer runs, seconds per 1,000 settled orders (`warm`: the runs' warm part). */
export function threadChecks(subject: readonly RunResult[], part: 'whole' | 'warm' = 'whole'): Record<string, string> {
  const splits = subject.flatMap((run) => {
    const split = part === 'warm' ? run.warm?.threadsPer1000 : run.relayerThreadsPer1000
    return split ? [split] : []
  })
  if (splits.length === 0) return {}
  const mid = (pick: (split: ThreadCpu) => number) => {
    const values = splits.map(pick).sort((a, b) => a - b)
    return values[Math.floor(values.length / 2)]!.toFixed(2)
  }
  return {
    'relayer CPU per 1000 orders by thread': `main ${mid((split) => split.main)} s, signer ${mid((split) => split.signer)} s, JIT compiler ${mid((split) => split.jit)} s, other ${mid((split) => split.other)} s`,
  }
}
