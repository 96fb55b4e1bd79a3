// `bun scripts/pending-simulation-cost.ts [--pool 0,64,256] [--batch 64] [--reps 8]`:
// what anvil spends on one batched simulation (the relayer's BatchSimulator call, of
// `--batch` orders) while its pool holds `--pool` txs: at `pending` (anvil executes its
// pool for the call, as the relayer's simulations do), at `latest` (it does not), and at
// `latest` with as many of the pooled orders as fit under anvil's 30 M gas cap for a call
// (at most 128) replayed ahead of the batch in the same call (what a simulation that sees
// the pool's txs without `pending` would execute).
// Prints anvil's CPU per call and per pooled or replayed tx. Not a benchmark row: the
// numbers behind the 0.25 s-blocks row's two states in docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { oneOffContext } from './bench/lib/context.ts'
import { wholeFrom } from './bench/lib/flags.ts'
import { measurePendingCost } from './bench/lib/pendingCost.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { pool: { type: 'string', default: '0,64,256' }, batch: { type: 'string', default: '64' }, reps: { type: 'string', default: '8' } },
})
const pools = values.pool.split(',').map((each) => wholeFrom(each, 0, '--pool'))
const batch = wholeFrom(values.batch, 2, '--batch')
const reps = wholeFrom(values.reps, 1, '--reps')
process.env.FOUNDRY_DISABLE_NIGHTLY_WARNING = 'true'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-pending-cost-'))
const context = oneOffContext(dir, { log: (line) => console.error(line) })
try {
  const results = await measurePendingCost(context, { pools, batch, reps })
  const ms = (value: number) => value.toFixed(1)
  console.log(`anvil's CPU per batched simulation of ${batch} orders, mean of ${reps} calls; load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
  console.log('| pooled txs | at pending, ms | at latest, ms | at latest replaying N pooled orders, ms | per pooled tx at pending, ms | per replayed order, ms |')
  console.log('|---|---|---|---|---|---|')
  for (const each of results) {
    console.log(
      `| ${each.pool} | ${ms(each.pending.anvilMs)} (wall ${ms(each.pending.wallMs)}) | ${ms(each.latest.anvilMs)} (wall ${ms(each.latest.wallMs)}) | ${ms(each.replay.anvilMs)} (N = ${each.replay.replayed}) | ${each.pool ? each.perPooledTxMs.toFixed(3) : '—'} | ${each.replay.replayed ? each.perReplayedOrderMs.toFixed(3) : '—'} |`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
