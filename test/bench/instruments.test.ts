// The benchmarks' measuring instruments (scripts/bench/lib), checked against known
// answers: the /proc CPU reading, percentiles, a latency target given as a difference,
// and on a real interval-mined anvil the per-block receipt watcher and the count of
// reverted transactions that every settlement row prints, `--count-rpc`'s proxy, and the
// steady load (the flood) with its own CPU.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseEther } from 'viem'
import { watchBlockReceipts } from '../../scripts/bench/lib/blockReceipts.ts'
import { revertedFrom } from '../../scripts/bench/lib/chainChecks.ts'
import { oneOffContext } from '../../scripts/bench/lib/context.ts'
import { cpuSeconds, cpuSecondsOf, machineCpu, machineCpuOf, machineShares, relayerThreadCpu } from '../../scripts/bench/lib/cpu.ts'
import { formatTable, row } from '../../scripts/bench/lib/report.ts'
import { rpc, rpcBatch } from '../../scripts/bench/lib/rpc.ts'
import { startRpcCounter } from '../../scripts/bench/lib/rpcCounter.ts'
import { cpuBoundChecks, type RunResult, threadChecks } from '../../scripts/bench/lib/settlementRuns.ts'
import { startChain } from '../../scripts/bench/lib/settlementWork.ts'
import { isSteady, pairByPair, percentile } from '../../scripts/bench/lib/stats.ts'
import { startSteadyLoad } from '../../scripts/bench/lib/steadyLoad.ts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-bench-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('CPU seconds are utime + stime, counted after the command name even when it holds ") "', () => {
  const stat = '4242 (anvil (x) y) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 1 0 100 1000 10'
  expect(cpuSecondsOf(stat)).toBe(3.25)
  // Our own process: spinning shows up as CPU seconds (how soon depends on the machine's load).
  const before = cpuSeconds(process.pid)
  const deadline = performance.now() + 20_000
  while (cpuSeconds(process.pid) - before < 0.05) {
    if (performance.now() > deadline) throw new Error('20 s of spinning never showed 0.05 s of CPU in /proc/<pid>/stat')
  }
})

test("the machine's CPU from /proc/stat: busy counts every process's time, steal is the hypervisor's, and shares are of the time between two readings", () => {
  // user nice system idle iowait irq softirq steal guest guest_nice, in 1/100 s
  const before = machineCpuOf('cpu  1000 100 400 5000 200 0 100 200 0 0\ncpu0 500 50 200 2500 100 0 50 100 0 0\n')
  expect(before).toEqual({ busy: 16, steal: 2, total: 70 })
  const after = machineCpuOf('cpu  1500 100 600 5200 200 0 100 300 0 0\n')
  // 1,000 ticks passed: 700 busy, 200 idle, 100 stolen.
  expect(machineShares(before, after)).toEqual({ busy: 0.7, steal: 0.1 })
  expect(machineShares(after, after)).toEqual({ busy: 0, steal: 0 })
  expect(() => machineCpuOf('intr 1 2 3')).toThrow('no cpu line')
  // This machine: our own spinning shows up as busy time.
  const first = machineCpu()
  const deadline = performance.now() + 20_000
  while (machineCpu().busy - first.busy < 0.05) {
    if (performance.now() > deadline) throw new Error('20 s of spinning never showed 0.05 s of busy CPU in /proc/stat')
  }
  expect(machineCpu().total).toBeGreaterThan(first.total)
})

test("a process's CPU split by thread: a Worker's spinning is the signer's, the main thread's its own, and the parts add up to the whole", async () => {
  const before = relayerThreadCpu(process.pid)
  // A Worker that spins, as the relayer's signer thread would, until told to stop, then
  // stays (a Worker with nothing left to do ends, and its thread's CPU would count as
  // "other"). Both threads spin until /proc shows their CPU, not for a wall time: on a
  // loaded machine 0.15 s of wall time can be much less of CPU.
  const stop = new Int32Array(new SharedArrayBuffer(4))
  const source = 'onmessage = ({ data }) => { let x = 0; while (Atomics.load(data, 0) === 0) x++; postMessage(x); setInterval(() => {}, 1000) }'
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })))
  let answered = false
  worker.onmessage = () => (answered = true)
  worker.postMessage(stop)
  let after = before
  try {
    // Read while the Worker's thread is still there (a thread gone counts as "other").
    const deadline = performance.now() + 20_000
    for (;;) {
      after = relayerThreadCpu(process.pid)
      if (after.signer - before.signer >= 0.05 && after.main - before.main >= 0.05) break
      if (performance.now() > deadline) throw new Error(`20 s of spinning never showed 0.05 s more CPU on the signer and the main thread (main ${after.main - before.main}, signer ${after.signer - before.signer})`)
      const spinning = performance.now()
      while (performance.now() - spinning < 5) {}
    }
    Atomics.store(stop, 0, 1)
    await waitFor('the spinning Worker to answer', () => answered)
  } finally {
    worker.terminate()
  }
  expect(after.main + after.signer + after.jit + after.other).toBeCloseTo(cpuSeconds(process.pid), 1)
  expect(threadChecks([{ relayerThreadsPer1000: { main: 1, signer: 0.5, jit: 0.25, other: 0.125 } } as RunResult])).toEqual({
    'relayer CPU per 1000 orders by thread': 'main 1.00 s, signer 0.50 s, JIT compiler 0.25 s, other 0.13 s',
  })
  // The warm part of each run is split the same way, from its own figures; a run without one is left out.
  const warm = (main: number) => ({ relayerThreadsPer1000: { main: 9, signer: 9, jit: 9, other: 9 }, warm: { relayerCpuPer1000: main, anvilCpuPer1000: 1, threadsPer1000: { main, signer: 0.2, jit: 0.05, other: 0.1 } } }) as RunResult
  expect(threadChecks([warm(0.8), warm(0.6), { relayerThreadsPer1000: { main: 9, signer: 9, jit: 9, other: 9 } } as RunResult, warm(0.7)], 'warm')).toEqual({
    'relayer CPU per 1000 orders by thread': 'main 0.70 s, signer 0.20 s, JIT compiler 0.05 s, other 0.10 s',
  })
})

test('the CPU-bound ratio: a baseline filling the cores with half the CPU per order allows the subject half its throughput', () => {
  const run = (runCpuPer1000: number, coresBusy: number) => ({ runCpuPer1000, coresBusy }) as RunResult
  expect(cpuBoundChecks([run(10, 1)], [run(5, 1)])['CPU-bound ratio']).toBe('0.50')
  // A baseline that left half the cores idle leaves room: the bound doubles.
  expect(cpuBoundChecks([run(10, 1), run(10, 0.9), run(11, 1)], [run(5, 0.5)])).toEqual({
    'CPU of the run per 1000 orders, subject': '10.00 s (cores 100% busy)',
    baseline: '5.00 s (cores 50% busy)',
    'CPU-bound ratio': '1.00',
  })
})

test('percentiles are nearest-rank', () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i)
  expect(percentile(values, 50)).toBe(50)
  expect(percentile(values, 99)).toBe(99)
  expect(percentile(values, 100)).toBe(100)
  expect(percentile([7], 99)).toBe(7)
})

test('pair by pair: each run against the baseline run beside it, in run order, and their median', () => {
  expect(pairByPair([604, 706, 702], [606, 454, 453])).toBe('1.00 1.56 1.55 (median 1.55)')
  expect(pairByPair([2, 1], [1, 2])).toBe('2.00 0.50 (median 1.25)')
})

test('a difference target compares subject minus baseline, in the row unit', () => {
  const latency = (subject: number) =>
    row({ name: 'p50', unit: 'ms', subjectName: 's', baselineName: 'b', subject: [subject], baseline: [500], target: { op: '<=', value: 250, of: 'difference' } })
  expect(latency(750).pass).toBe(true)
  expect(latency(751).pass).toBe(false)
  expect(latency(750).ratio).toBe(1.5)
  const ratio = row({ name: 'r', unit: 'orders/s', subjectName: 's', baselineName: 'b', subject: [90], baseline: [100], target: { op: '>=', value: 0.9 } })
  expect(ratio.pass).toBe(true)
})

test('a row whose runs scattered is UNSTEADY, neither pass nor miss, and names the side; steady runs decide by their median', () => {
  // A disturbed baseline on the 2-core machine: two of three rounds slowed by something
  // else, which would make the relayer's ratio read 1.76.
  const disturbed = [15245, 10192, 38232]
  expect(isSteady(disturbed)).toBe(false)
  expect(isSteady([37508, 33252, 32485])).toBe(true)
  expect(isSteady([100, 80, 200])).toBe(true) // two of three within 25 % of the median
  expect(isSteady([7])).toBe(true)
  expect(isSteady([0, 0, 3])).toBe(true) // a median of 0: nothing to compare
  const rejections = (baseline: number[]) =>
    row({ name: 'rejections', unit: 'req/s', subjectName: 's', baselineName: 'b', subject: [23562, 26850, 32485], baseline, target: { op: '>=', value: 0.7 } })
  const unsteady = rejections(disturbed)
  expect(unsteady.ratio).toBeGreaterThan(1.7)
  expect(unsteady.pass).toBe(false)
  expect(unsteady.unsteady).toBe('baseline runs 15245 10192 38232: fewer than half within 25 % of their median')
  const table = formatTable([unsteady])
  expect(table).toMatch(/\| UNSTEADY +\|/)
  expect(table).toContain('UNSTEADY baseline runs 15245 10192 38232')
  const steady = rejections([52795, 54736, 51262])
  expect(steady.unsteady).toBeUndefined()
  expect(steady.pass).toBe(false)
  expect(formatTable([steady])).toMatch(/\| MISS +\|/)
  // A failed check is a miss whatever the runs; a row without a target is information.
  expect(row({ name: 'r', unit: 'req/s', subjectName: 's', baselineName: 'b', subject: [1, 1, 1], baseline: disturbed, target: { op: '>=', value: 0.7 }, failedChecks: ['a 500'] }).unsteady).toBeUndefined()
  expect(row({ name: 'r', unit: 'req/s', subjectName: 's', baselineName: 'b', subject: [1, 1, 1], baseline: disturbed }).pass).toBeUndefined()
})

test('on a 0.25 s-block anvil, receipts come once per block, reverted txs from a key are counted, RPC calls are counted', async () => {
  const context = oneOffContext(dir)
  const devnet = await startChain(context, 'interval', 10)
  try {
    expect(await devnet.testClient.getAutomine()).toBe(false)
    const startBlock = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    const watcher = await watchBlockReceipts(devnet.rpcUrl)
    try {
      const wallet = devnet.wallet('deployer')
      // A plain transfer, and a call the Broker refuses (no such function), with a gas limit so it is sent anyway.
      const ok = await wallet.sendTransaction({ to: devnetAccounts.payee.address, value: parseEther('1') })
      const bad = await wallet.sendTransaction({ to: devnet.manifest.contracts.broker, data: '0xdeadbeef', gas: 100_000n })
      expect(await Promise.all([watcher.wait(ok), watcher.wait(bad)])).toEqual(['0x1', '0x0'])
    } finally {
      watcher.close()
    }
    expect(await revertedFrom(devnet, [devnetAccounts.deployer.address], startBlock)).toBe(1)
    expect(await revertedFrom(devnet, [devnetAccounts.relayer.address], startBlock)).toBe(0)

    // --count-rpc's proxy counts each call of a batch and each HTTP request (a batch is
    // one), and answers what the node answers.
    const counter = await startRpcCounter(devnet.rpcUrl)
    try {
      const head = await rpc<Hex>(counter.url, 'eth_blockNumber')
      expect(BigInt(head)).toBeGreaterThan(startBlock)
      await rpcBatch(counter.url, [
        { method: 'eth_getBlockReceipts', params: [head] },
        { method: 'eth_getBlockReceipts', params: ['0x1'] },
      ])
      expect(counter.perOrder(1)).toBe('(HTTP requests) 2, eth_getBlockReceipts 2, eth_blockNumber 1')
      expect(counter.perOrder(1000)).toBe('(HTTP requests) 2 in all, eth_getBlockReceipts 2 in all, eth_blockNumber 1 in all')
      counter.reset()
      expect(counter.perOrder(1)).toBe('')
    } finally {
      counter.stop()
    }
  } finally {
    await devnet.stop()
  }
})

test.each(['autocannon', 'steady'] as const)("the %s load holds its rate and reports its own CPU, a share of what it ran for", async (generator) => {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') })
  try {
    const load = await startSteadyLoad({ url: `http://127.0.0.1:${server.port}/`, rate: 400, connections: 4, amount: 400, seconds: 10, generator })
    const result = await load.done
    expect(result.statuses).toEqual({ '200': 400 })
    expect(result.perSecond).toBeGreaterThan(200)
    expect(result.errors + result.timeouts).toBe(0)
    // Its own CPU from the start of the load: some, and at most two cores' worth of the time it ran.
    expect(result.cpuSeconds).toBeGreaterThan(0)
    expect(result.cpuSeconds).toBeLessThan(2 * result.seconds + 0.05)
  } finally {
    server.stop(true)
  }
}, 30_000)

test('the steady client opens a connection again when the server closes it after an answer, and counts every answer', async () => {
  // The client's source port tells its connections apart.
  const ports = new Set<number>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request, self) => {
      ports.add(self.requestIP(request)?.port ?? 0)
      return new Response('bye', { status: 400, headers: { connection: 'close' } })
    },
  })
  try {
    const load = await startSteadyLoad({ url: `http://127.0.0.1:${server.port}/broker`, rate: 200, connections: 4, amount: 200, seconds: 10, method: 'POST', body: '{}', generator: 'steady' })
    const result = await load.done
    expect(result.statuses).toEqual({ '400': 200 })
    expect(result.errors + result.timeouts).toBe(0)
    // Far more connections than the 4 it keeps: each was opened again after its close.
    expect(ports.size).toBeGreaterThan(100)
  } finally {
    server.stop(true)
  }
}, 30_000)

test('the steady client spreads its requests over each second (POST bodies intact), where autocannon sends each connection\'s share in one burst', async () => {
  const arrivals: Record<'autocannon' | 'steady', number[]> = { autocannon: [], steady: [] }
  let generator: 'autocannon' | 'steady' = 'steady'
  const body = JSON.stringify({ flood: 'x'.repeat(500) })
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      arrivals[generator].push(performance.now())
      return (await request.text()) === body ? new Response('bad', { status: 400 }) : new Response('wrong body', { status: 500 })
    },
  })
  // Requests per 100 ms window, from 0.3 s into the load to 0.1 s before its end.
  const windows = (times: number[]) => {
    const start = times[0]! + 300
    const counts: number[] = []
    for (let at = start; at + 100 <= times.at(-1)! - 100; at += 100) counts.push(times.filter((time) => time >= at && time < at + 100).length)
    return counts
  }
  try {
    for (generator of ['steady', 'autocannon'] as const) {
      const load = await startSteadyLoad({ url: `http://127.0.0.1:${server.port}/broker`, rate: 500, connections: 8, amount: 1_500, seconds: 10, method: 'POST', body, headers: { 'content-type': 'application/json' }, generator })
      const result = await load.done
      expect(result.statuses).toEqual({ '400': 1_500 })
    }
    // 500 a second is 50 per 100 ms: the steady client has requests in every window and
    // never a second's share at once (on a loaded shared machine a window can fall to
    // half its share, or take some of the one before).
    const steady = windows(arrivals.steady)
    expect(steady.length).toBeGreaterThan(15)
    expect(Math.max(...steady)).toBeLessThan(100)
    expect(Math.min(...steady)).toBeGreaterThan(10)
    // autocannon: a window with the second's requests in one burst, and windows with none.
    const bursts = windows(arrivals.autocannon)
    expect(Math.max(...bursts)).toBeGreaterThan(200)
    expect(Math.min(...bursts)).toBe(0)
  } finally {
    server.stop(true)
  }
}, 60_000)
