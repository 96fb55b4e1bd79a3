// scripts/pending-simulation-cost.ts backs a claim in docs/benchmarks.md: a simulation
// at `pending` makes anvil execute its pool, and replaying the pooled orders at `latest`
// costs about as much. Here on a real anvil with the real contracts: the pool is filled
// as asked, the batch's own orders pass at both block tags, and a full pool makes the
// `pending` call cost anvil more than the `latest` one.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { oneOffContext } from '../../scripts/bench/lib/context.ts'
import { measurePendingCost } from '../../scripts/bench/lib/pendingCost.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-pending-cost-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a batched simulation at pending costs anvil its pool; at latest it does not', async () => {
  const [empty, full] = await measurePendingCost(oneOffContext(dir), { pools: [0, 96], batch: 4, reps: 4 })
  expect(empty!.pool).toBe(0)
  expect(empty!.replay.replayed).toBe(0)
  expect(full!.pool).toBe(96)
  expect(full!.replay.replayed).toBeGreaterThan(0)
  // 96 pooled txs at ~0.15 ms each against a batch of 4 orders: several times apart, well
  // beyond /proc's 10 ms ticks over four calls.
  expect(full!.pending.anvilMs).toBeGreaterThan(2 * full!.latest.anvilMs)
  expect(full!.perPooledTxMs).toBeGreaterThan(0)
}, 120_000)
