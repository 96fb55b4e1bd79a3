// `bun scripts/journal-cost.ts [--sizes 8,32] [--orders 4000] [--rounds 5]`: the durable
// journal's own CPU per order, a file against `:memory:`, in alternating rounds in one
// process, with no chain and no HTTP: per batch of `--sizes` orders (one commit and one
// fsync each, as the relayer's batch sender writes them), the writes and reads a
// settlement makes (bench/lib/journalCost.ts). Prints user and system µs per order for
// each side and what the file adds. Not a benchmark row: the numbers behind the journal
// row's reading in docs/benchmarks.md, which under the settlement's load cost more.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { wholeFrom } from './bench/lib/flags.ts'
import { measureJournalCost } from './bench/lib/journalCost.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { sizes: { type: 'string', default: '8,32' }, orders: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '5' } },
})
const sizes = values.sizes.split(',').map((each) => wholeFrom(each, 1, '--sizes'))
const orders = wholeFrom(values.orders, 1, '--orders')
const rounds = wholeFrom(values.rounds, 1, '--rounds')

const dir = mkdtempSync(join(tmpdir(), 'order-relay-journal-cost-'))
try {
  console.log(`the journal's CPU per order, a file (in ${tmpdir()}) against :memory:, medians of ${rounds} rounds of ${orders} orders`)
  console.log('| orders per batch | file, µs (user + system) | :memory:, µs (user + system) | the file adds, µs |\n|---|---|---|---|')
  for (const cost of await measureJournalCost(dir, { sizes, orders, rounds })) {
    const side = (each: typeof cost.file) => `${each.totalUs.toFixed(0)} (${each.userUs.toFixed(0)} + ${each.systemUs.toFixed(0)})`
    console.log(`| ${cost.size} | ${side(cost.file)} | ${side(cost.memory)} | ${cost.fileExtraUs.toFixed(0)} |`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
