// A gas key at a signer service (a remote signer, KMS: 10–100 ms a signature) against the
// local key, on the automine settlement with the same pre-signed orders: what waiting on
// the signer costs in orders/s when a batch's signatures are asked for together,
// RELAYER_SIGNER_CONCURRENCY at once (docs/relayer-safety.md). Target: ≥ 0.9 of the
// local key's throughput with 20 ms a signature.
//
// Each side is one `SignerSide`: how its relayer process starts and with what variables.
// `delayedDoubleSide` is the relayer from source with a signer double that answers after
// the delay (servers/signerRelayer.ts); a side for the real remote signer is another
// SignerSide: the executable with RELAYER_SIGNER_URL at an anvil of its own (anvil signs
// eth_signTransaction for its development accounts, the devnet's relayer key among them)
// behind a proxy that delays each answer, started and stopped by the side.
import { join } from 'node:path'
import type { BenchContext } from './lib/context.ts'
import { type Row, row } from './lib/report.ts'
import { relayerRun, type RunResult, settlementChecks } from './lib/settlementRuns.ts'
import { prepareWork } from './lib/settlementWork.ts'

/**
 * How one side's relayer process signs: the command that starts it and its extra variables
 * (over relayerRun's; `RELAYER_PK: ''` unsets the key for a side whose key is elsewhere).
 */
export type SignerSide = {
  name: string
  /** The command and variables of one run's relayer, and the stop of what the side started for it (a signer service). */
  start(context: BenchContext): Promise<{ command: string[]; env: Record<string, string>; stop(): Promise<void> }>
}

const signerRelayer = join(import.meta.dir, 'servers', 'signerRelayer.ts')

/** The relayer from source (servers/signerRelayer.ts) with its local key, in the signer thread. */
export const localKeySide: SignerSide = {
  name: 'local key (RELAYER_PK)',
  start: async () => ({ command: [process.execPath, signerRelayer], env: {}, stop: async () => {} }),
}

/** The same relayer with the key at a signer double answering each signature after `delayMs` (no key handed over). */
export const delayedDoubleSide = (delayMs: number): SignerSide => ({
  name: `signer service, ${delayMs} ms a signature`,
  start: async () => ({ command: [process.execPath, signerRelayer], env: { BENCH_SIGNER_DELAY_MS: String(delayMs) }, stop: async () => {} }),
})

export type SignerBenchOptions = { orders: number; clients: number; subject?: SignerSide; baseline?: SignerSide }

/** Runs both sides `context.runs` times, alternating which goes first, each on a fresh devnet. */
export async function benchSigner(context: BenchContext, options: SignerBenchOptions): Promise<Row[]> {
  const subject = options.subject ?? delayedDoubleSide(20)
  const baseline = options.baseline ?? localKeySide
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
