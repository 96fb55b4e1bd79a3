// The executable's start to the first GET /health 200 (`serve`: relayer and indexer
// in one process, against a devnet), beside a compiled Bun server that only answers
// /health. Memory rows (relayer after the settlement load, indexer holding the full
// retention) are reported beside that same minimal server's resident memory.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { type BenchContext, childEnv } from './lib/context.ts'
import { type Child, spawnChild, waitForOk } from './lib/processes.ts'
import { type Row, row } from './lib/report.ts'

export type StartupResult = { row: Row; baselineRssMiB: number[] }

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
    for (let run = 0; run < runs; run++) {
      for (const side of run % 2 === 0 ? ['serve', 'bare'] : ['bare', 'serve']) {
        if (side === 'serve') {
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
    context.log(`startup: serve ${subject.map((ms) => ms.toFixed(0)).join(', ')} ms; bare ${baseline.map((ms) => ms.toFixed(0)).join(', ')} ms`)
    return {
      row: row({ name: 'start to first /health 200 (serve)', unit: 'ms', subjectName: 'order-relay serve', baselineName: 'compiled Bun.serve /health', subject, baseline }),
      baselineRssMiB,
    }
  } finally {
    await devnet.stop()
  }
}
