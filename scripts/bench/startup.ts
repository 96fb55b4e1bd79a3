// The executable's start to the first GET /health 200, beside a compiled Bun server that
// only answers /health: `relayer` (the target: within 2x), whose checks split its time by
// phase, and `serve` (relayer and indexer in one process), both against a devnet. Memory rows (relayer after the settlement load, indexer holding the full
// retention) are reported beside that same minimal server's resident memory.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { startRpcCounter } from './lib/rpcCounter.ts'
import { type Row, row } from './lib/report.ts'
import { median } from './lib/stats.ts'

export type StartupResult = { rows: Row[]; baselineRssMiB: number[] }

/** ms from spawning `command` to its exit (the module load and nothing else, for `--version`). */
function timeToExit(command: string[], cwd: string): number {
  const startedAt = performance.now()
  const result = Bun.spawnSync(command, { cwd, stdout: 'ignore', stderr: 'ignore' })
  if (result.exitCode !== 0) throw new Error(`${command.join(' ')} exited ${result.exitCode}`)
  return performance.now() - startedAt
}

/**
 * The relayer's start by phase: until its "listening on" line (configuration, journal, the
 * chain reads it makes before serving) and until GET /health answers 200.
 */
async function relayerPhases(command: string[], env: Record<string, string>, healthUrl: string, cwd: string): Promise<{ listeningMs: number; healthMs: number }> {
  const startedAt = performance.now()
  const child: Child = spawnChild(command, env, { cwd })
  let listeningMs = Number.NaN
  let done = false
  const watch = (async () => {
    while (!done && Number.isNaN(listeningMs)) {
      if (child.output.includes('listening on')) listeningMs = performance.now() - startedAt
      await Bun.sleep(1)
    }
  })()
  try {
    const healthMs = await waitForOk(healthUrl, { child, startedAt, intervalMs: 1 })
    done = true
    await watch
    return { listeningMs: Number.isNaN(listeningMs) ? healthMs : Math.min(listeningMs, healthMs), healthMs }
  } finally {
    done = true
    await child.stop()
  }
}

async function timeToHealth(command: string[], env: Record<string, string>, healthUrl: string, cwd: string): Promise<{ ms: number; rssMiB: number }> {
  const startedAt = performance.now()
  const child: Child = spawnChild(command, env, { cwd })
  try {
    const ms = await waitForOk(healthUrl, { child, startedAt, intervalMs: 1 })
    return { ms, rssMiB: child.rssMiB() }
  } finally {
    await child.stop()
  }
}

export async function benchStartup(context: BenchContext, runs: number): Promise<StartupResult> {
  const devnet = await startDevnet()
  try {
    const manifest = join(context.dir, 'manifest.json')
    writeFileSync(manifest, JSON.stringify(devnet.manifest))
    const subject: number[] = []
    const baseline: number[] = []
    const baselineRssMiB: number[] = []
    const relayer: number[] = []
    const listening: number[] = []
    const loaded: number[] = []
    for (let run = 0; run < runs; run++) {
      for (const side of run % 2 === 0 ? ['serve', 'relayer', 'bare'] : ['bare', 'relayer', 'serve']) {
        if (side === 'relayer') {
          const port = await freePort()
          loaded.push(timeToExit([context.exe, '--version'], context.dir))
          const phases = await relayerPhases(
            [context.exe, 'relayer', '--manifest', manifest],
            childEnv({ RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_PORT: String(port), RELAYER_DB: join(context.dir, `startup-relayer-${run}.db`) }),
            `http://127.0.0.1:${port}/health`,
            context.dir,
          )
          relayer.push(phases.healthMs)
          listening.push(phases.listeningMs)
        } else if (side === 'serve') {
          const [relayerPort, indexerPort] = [await freePort(), await freePort()]
          const result = await timeToHealth(
            [context.exe, 'serve', '--manifest', manifest],
            childEnv({ RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_PORT: String(relayerPort), INDEXER_PORT: String(indexerPort), RELAYER_DB: join(context.dir, `startup-${run}.db`), INDEXER_DB: ':memory:' }),
            `http://127.0.0.1:${indexerPort}/health`,
            context.dir,
          )
          subject.push(result.ms)
        } else {
          const port = await freePort()
          const result = await timeToHealth([context.baselineExe, 'health', String(port)], childEnv({}), `http://127.0.0.1:${port}/health`, context.dir)
          baseline.push(result.ms)
          baselineRssMiB.push(result.rssMiB)
        }
      }
    }
    // One more start, untimed, its HTTP JSON-RPC through a counting proxy: the chain reads
    // the relayer makes before its first /health 200.
    const counter = await startRpcCounter(devnet.rpcUrl)
    let chainReads: string
    try {
      const port = await freePort()
      await relayerPhases(
        [context.exe, 'relayer', '--manifest', manifest],
        childEnv({
          RELAYER_PK: devnetAccounts.relayer.privateKey,
          RELAYER_PORT: String(port),
          RELAYER_DB: join(context.dir, 'startup-relayer-counted.db'),
          RELAYER_RPC_URL: counter.url,
          ...(devnet.manifest.wsUrl ? { RELAYER_WS_URL: devnet.manifest.wsUrl } : {}),
        }),
        `http://127.0.0.1:${port}/health`,
        context.dir,
      )
      chainReads = counter.perOrder(1) || 'none'
    } finally {
      counter.stop()
    }
    const list = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(', ')
    context.log(`startup: relayer ${list(relayer)} ms (load ${list(loaded)}, listening ${list(listening)}); serve ${list(subject)} ms; bare ${list(baseline)} ms`)
    const loadMs = median(loaded)
    const listeningMs = median(listening)
    const healthMs = median(relayer)
    return {
      rows: [
        row({
          name: 'start to first /health 200 (relayer)',
          unit: 'ms',
          subjectName: 'order-relay relayer',
          baselineName: 'compiled Bun.serve /health',
          subject: relayer,
          baseline,
          target: { op: '<=', value: 2 },
          // Where the time goes, medians in ms: the executable's own start and module load
          // (`--version` to its exit), then configuration, journal and the chain reads up to
          // the "listening on" line, then the first /health answer.
          checks: {
            'phase: load (--version) ms': Math.round(loadMs),
            'phase: config, journal, chain reads ms': Math.round(Math.max(0, listeningMs - loadMs)),
            'phase: listening to /health 200 ms': Math.round(Math.max(0, healthMs - listeningMs)),
            'JSON-RPC before /health 200': chainReads,
            'bare Bun.serve ms': Math.round(median(baseline)),
          },
        }),
        row({ name: 'start to first /health 200 (serve)', unit: 'ms', subjectName: 'order-relay serve', baselineName: 'compiled Bun.serve /health', subject, baseline }),
      ],
      baselineRssMiB,
    }
  } finally {
    await devnet.stop()
  }
}
