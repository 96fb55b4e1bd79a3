// scripts/journal-cost.ts backs the journal row's reading in docs/benchmarks.md: what a
// file adds to the journal's own CPU per order over `:memory:`, with the relayer's
// journal code. Here: the file side really wrote every order and its outcome to disk,
// and its writes and fsyncs show as kernel time the `:memory:` side does not spend.
import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { measureJournalCost } from '../../scripts/bench/lib/journalCost.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-journal-cost-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("a file journal's writes cost kernel time that :memory: does not; every order is on disk, settled", async () => {
  const [cost] = await measureJournalCost(dir, { sizes: [8], orders: 2000, rounds: 2 })
  expect(cost!.size).toBe(8)
  for (const side of [cost!.file, cost!.memory]) {
    expect(side.totalUs).toBeGreaterThan(0)
    expect(side.totalUs).toBeCloseTo(side.userUs + side.systemUs, 6)
  }
  // ~60 µs of system time per order with a file (WAL frames, one fsync per batch) against
  // ~5–40 with :memory: (a loaded machine's scheduling shows as kernel time too); 2,000
  // orders put both far above the kernel's accounting tick.
  expect(cost!.file.systemUs).toBeGreaterThan(cost!.memory.systemUs)
  expect(cost!.fileExtraUs).toBe(cost!.file.totalUs - cost!.memory.totalUs)

  const db = new Database(join(dir, 'journal-8-0.db'), { readonly: true })
  try {
    const rows = db.query<{ status: string; n: number }, []>('SELECT status, COUNT(*) AS n FROM slots GROUP BY status').all()
    expect(rows).toEqual([{ status: 'settled', n: 2000 }])
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM slots WHERE answer = 'OK'").get()!.n).toBe(2000)
  } finally {
    db.close()
  }
}, 120_000)
