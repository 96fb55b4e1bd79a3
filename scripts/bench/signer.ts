// A gas key at a signer service (a remote signer, KMS: 10–100 ms a signature) against the
// local key, on the automine settlement with the same pre-signed orders: what waiting on
// the signer costs in orders/s when a batch's signatures are asked for together,
// RELAYER_SIGNER_CONCURRENCY at once (docs/relayer-safety.md). Target: ≥ 0.9 of the
// local key's throughput with 20 ms a signature.
//
// Each side is one `SignerSide`: how its relayer process starts and with what variables.
// The row's subject is the executable with the key at a real remote signer
// (RELAYER_SIGNER_URL): an anvil of its own, which signs eth_signTransaction for its
// development accounts, behind a proxy that holds each signature 20 ms
// (lib/remoteSignerService.ts). The baseline is the executable with its local key in the
// signer thread. The bench's devnets run chain 421614 (startDevnet's default), and so does
// the signer's anvil.
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { relayerRun, type RunResult, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'
import { startRemoteSignerService } from './lib/remoteSignerService.ts'

/**
 * How one side's relayer process signs: the command that starts it and its extra variables
 * (over relayerRun's; `RELAYER_PK: ''` unsets the key for a side whose key is elsewhere).
 */
export type SignerSide = {
  name: string
  /** The command and variables of one run's relayer, and the stop of what the side started for it (a signer service). */
  start(context: BenchContext): Promise<{ command: string[]; env: Record<string, string>; stop(): Promise<void> }>
}

/** The executable with its key at a remote signer answering each signature after `delayMs` (lib/remoteSignerService.ts). */
export const remoteSignerSide = (delayMs: number, chainId: number): SignerSide => ({
  name: `remote signer (RELAYER_SIGNER_URL), ${delayMs} ms a signature`,
  start: async (context) => {
    const service = await startRemoteSignerService({ chainId, delayMs })
    return { command: [context.exe, 'relayer'], env: service.env, stop: () => service.stop() }
  },
})

/** The executable with its local key (RELAYER_PK), in the signer thread. */
export const executableLocalKeySide: SignerSide = {
  name: 'local key (RELAYER_PK)',
  start: async (context) => ({ command: [context.exe, 'relayer'], env: {}, stop: async () => {} }),
}

export type SignerBenchOptions = { orders: number; clients: number; subject?: SignerSide; baseline?: SignerSide }

/** Runs both sides `context.runs` times, alternating which goes first, each on a fresh devnet. */
export async function benchSigner(context: BenchContext, options: SignerBenchOptions): Promise<Row[]> {
  const subject = options.subject ?? remoteSignerSide(20, 421614)
  const baseline = options.baseline ?? executableLocalKeySide
  const work = await prepareWork(context, 'automine', { orders: options.orders, clients: options.clients, label: 'signer', baseline: false })
  const runs = { subject: [] as RunResult[], baseline: [] as RunResult[] }
  for (let run = 0; run < context.runs; run++) {
    for (const side of run % 2 === 0 ? (['baseline', 'subject'] as const) : (['subject', 'baseline'] as const)) {
      const signer = side === 'subject' ? subject : baseline
      const started = await signer.start(context)
      const result = await relayerRun(context, work, { command: started.command, env: started.env }).finally(() => started.stop())
      runs[side].push(result)
      context.log(`signer run ${run + 1}: ${signer.name} ${result.perSecond.toFixed(0)} orders/s, p99 ${result.p99.toFixed(0)} ms, statuses ${JSON.stringify(result.statuses)}`)
    }
  }
  const { checks, failedChecks } = settlementChecks(runs.subject, runs.baseline, options.orders)
  return [
    row({
      name: `settlement (automine) with the key at a signer service, ${options.orders} orders, ${options.clients} clients`,
      unit: 'orders/s',
      subjectName: subject.name,
      baselineName: baseline.name,
      subject: runs.subject.map((result) => result.perSecond),
      baseline: runs.baseline.map((result) => result.perSecond),
      target: { op: '>=', value: 0.9 },
      checks,
      failedChecks,
    }),
  ]
}
