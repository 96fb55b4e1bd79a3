// The deterministic simulator (src/simulator/): one seed decides a whole run, the same
// seed replays it step for step, a broken invariant is found and shrunk, and the money-path
// bugs it found stay fixed (each as a plan of its own, shrunk from the seed that found it).
import { expect, test } from 'bun:test'
import { type Plan, planFor, runPlan, runSeeds } from '../../src/simulator/index.ts'

test('the same seed gives the same run, step for step', async () => {
  const first = await runPlan(planFor(9))
  const again = await runPlan(planFor(9))
  expect(again.lastSteps).toEqual(first.lastSteps)
  expect(again.stats).toEqual(first.stats)
  expect(first.stats.orders).toBeGreaterThan(0)
  expect(first.violations).toEqual([])
  // Another seed is another run.
  expect((await runPlan(planFor(10))).lastSteps).not.toEqual(first.lastSteps)
})

test('a batch of seeds: every invariant holds, and the report counts what was simulated', async () => {
  const report = await runSeeds({ from: 1, count: 20 })
  expect(report.failures.map((failure) => `seed ${failure.seed}: ${failure.result.violations[0]?.invariant}`)).toEqual([])
  expect(report.ran).toBe(20)
  expect(report.orders).toBe(Array.from({ length: 20 }, (_, i) => planFor(i + 1).orders.length).reduce((a, b) => a + b, 0))
  // Each run goes on past its last fault until it is quiet, for at most 240 s after the 60 s of orders.
  expect(report.simulatedMs).toBeGreaterThanOrEqual(20 * 65_000)
  expect(report.simulatedMs).toBeLessThanOrEqual(20 * 300_000)
})

test('a quarter of the replica seeds restart a replica inside a node outage, as a supervisor does on a failing /ready', () => {
  const plans = Array.from({ length: 1_200 }, (_, i) => planFor(i + 1))
  const restartedInOutage = (plan: Plan) =>
    plan.faults.some((crash) => crash.kind === 'crash' && plan.faults.some((outage) => outage.kind === 'timeouts' && outage.at < crash.at && crash.at <= outage.at + outage.forMs))
  const replicaPlans = plans.filter((plan) => plan.replicas)
  const share = replicaPlans.filter(restartedInOutage).length / replicaPlans.length
  // The added pair is in a quarter of them; the other faults put a crash in an outage now and then too.
  expect(share).toBeGreaterThan(0.15)
  expect(share).toBeLessThan(0.4)
  for (const plan of replicaPlans) for (const fault of plan.faults) if (fault.kind === 'crash') expect(fault.replica).toBeLessThan(plan.replicas!.count)
  // A single relayer's plans are what they are without it: few of them have the pair.
  expect(plans.filter((plan) => !plan.replicas).filter(restartedInOutage).length / (plans.length - replicaPlans.length)).toBeLessThan(0.1)
})

const oneOrder = (blockMs: number, receiptPollMs: number, faults: Plan['faults'], order: Plan['orders'][number] = { id: 0, at: 5_000 }): Plan => ({
  seed: 1,
  blockMs,
  orders: [order],
  faults,
  relayer: { receiptPollMs },
})

test('receipts served late for longer than the keeper waits: the mined tx is the key\'s own, not another process\'s (seed 57)', async () => {
  // The tx is mined at 12 s; its block's receipts come only at 23.6 s. The node knows the tx all along.
  const result = await runPlan(oneOrder(12_000, 250, [{ at: 10_034, kind: 'lateReceipts', forMs: 13_620 }]))
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).not.toContain('taken by a transaction not in this relayer')
})

test('a reorg mines the same tx again after its order expired: the slot follows it to its revert (seed 100)', async () => {
  // Mined at 48 s and settled; the order expires at 57.9 s; a reorg at 59.8 s takes the block off and the tx is mined again, reverting.
  const result = await runPlan(
    oneOrder(12_000, 250, [{ at: 56_022, kind: 'timeouts', forMs: 6_389 }, { at: 59_821, kind: 'reorg', depth: 1 }], { id: 0, at: 45_617, expiresAfterMs: 12_293 }),
  )
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('a reorg replaced the chain above block 3: 1 tx of the key left it (nonce 0)')
})

test('an order whose window closes while a slow RPC holds its batch is answered AUTH_EXPIRED, never signed (seed 42)', async () => {
  // Admitted at 35.7 s (valid until 43 s, the next block at 36 s); 5.6 s each way to the node until 41 s,
  // so its batch is signed after 43 s: a tx signed then would revert in the block at 48 s, paid by the key.
  const result = await runPlan(oneOrder(12_000, 2_000, [{ at: 33_971, kind: 'slowNetwork', latencyMs: 5_651, forMs: 7_088 }], { id: 153, at: 35_742, expiresAfterMs: 7_372 }))
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('order 153 at relayer 1: refused AUTH_EXPIRED authorization window passed before its transaction could be signed (validBefore 1767225643, chain time about 1767225648); nothing was sent; re-sign with a fresh window')
})

test('a dropped tx signed at the fee cap during a base fee spike is filled under the cap, and the nonces behind it move (seed 374)', async () => {
  // Both orders are signed at the cap (2,000,000 wei) while the base fee is doubled; the pool drops them.
  // The first one's order expires: its filler cannot outbid it by 12.5 % under the cap, and need not (the node does not hold it).
  const plan: Plan = {
    seed: 374,
    blockMs: 2_000,
    orders: [{ id: 92, at: 13_994, expiresAfterMs: 18_599 }, { id: 16, at: 14_132 }],
    faults: [{ at: 9_554, kind: 'baseFeeSpike', factor: 2, forMs: 16_274 }, { at: 15_932, kind: 'dropPool', count: 3 }],
    relayer: { receiptPollMs: 2_000, maxFeePerGasWei: 2_000_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toMatch(/was dropped by the node and its order can no longer settle \(the order expired\); filled nonce 0 with a 0-value transfer/)
})

test('a slot suspected at a head a reorg took away is suspected again, not called foreign, at the new chain\'s lower head (seed 3094)', async () => {
  // Nonce 1 is mined in block 26, whose txs the node indexes 469 ms late: the keeper's first look misses it there.
  // A 4-deep reorg mines it again in a new block 23, indexed late again: a second look 2 s after the first, at a lower head,
  // must not call the key's own tx another process's.
  const plan: Plan = {
    seed: 3094,
    blockMs: 2_000,
    orders: [{ id: 73, at: 49_915 }, { id: 95, at: 50_024 }, { id: 70, at: 50_472 }],
    faults: [
      { at: 3_950, kind: 'timeouts', forMs: 8_408 },
      { at: 6_588, kind: 'timeouts', forMs: 3_059 },
      { at: 7_504, kind: 'baseFeeSpike', factor: 5, forMs: 19_625 },
      { at: 8_745, kind: 'indexLag', lagMs: 767, forMs: 17_370 },
      { at: 34_464, kind: 'lagReads', forMs: 11_083 },
      { at: 41_274, kind: 'indexLag', lagMs: 469, forMs: 18_706 },
      { at: 41_653, kind: 'crash', downMs: 422 },
      { at: 52_296, kind: 'reorg', depth: 4 },
    ],
    relayer: { receiptPollMs: 250 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).not.toContain('was taken by a transaction not in this relayer')
})

test('replicas: an order one replica waits for while Redis restarts empty is not sent by it too (seed 291)', async () => {
  // Three orders (133, 187, 192) are sent to replica 2, then again to replica 1, which waits on their claims. Redis restarts
  // empty at 8.5 s with replica 2's txs still pending (12 s blocks): the claims are gone, and a waiter that takes one under
  // the new epoch before its heartbeat has marked the state restoring would send the order a second time (it reverts, paid).
  const plan: Plan = {
    seed: 291,
    blockMs: 12_000,
    orders: [
      { id: 131, at: 1_391, replica: 0 }, { id: 33, at: 1_537, replica: 1 }, { id: 148, at: 1_596, replica: 1 }, { id: 54, at: 1_770, replica: 0 },
      { id: 8, at: 1_883, replica: 1 }, { id: 32, at: 1_978, replica: 1 }, { id: 42, at: 2_151, replica: 1 }, { id: 207, at: 2_402, expiresAfterMs: 8_197, replica: 1 },
      { id: 45, at: 2_503, replica: 0 }, { id: 197, at: 2_636, expiresAfterMs: 12_820, replica: 0 }, { id: 235, at: 2_878, expiresAfterMs: 19_598, replica: 1 },
      { id: 222, at: 3_162, replica: 1 }, { id: 133, at: 3_498, replica: 1 }, { id: 71, at: 3_656, replica: 1 }, { id: 112, at: 3_669, expiresAfterMs: 5_323, replica: 0 },
      { id: 68, at: 3_819, replica: 1 }, { id: 24, at: 4_323, replica: 0 }, { id: 34, at: 4_479, replica: 1 }, { id: 192, at: 4_632, replica: 1 },
      { id: 211, at: 5_102, expiresAfterMs: 16_343, replica: 0 }, { id: 187, at: 5_176, replica: 1 }, { id: 133, at: 5_250, replica: 0 }, { id: 126, at: 5_264, replica: 0 },
      { id: 217, at: 5_634, replica: 1 }, { id: 140, at: 5_735, expiresAfterMs: 17_886, replica: 0 }, { id: 137, at: 5_821, replica: 0 }, { id: 187, at: 6_218, replica: 0 },
      { id: 229, at: 6_479, replica: 0 }, { id: 100, at: 6_825, replica: 0 }, { id: 177, at: 7_044, replica: 1 }, { id: 192, at: 7_370, replica: 0 },
      { id: 96, at: 7_385, replica: 0 }, { id: 162, at: 7_508, replica: 1 },
    ],
    faults: [{ at: 8_492, kind: 'redisRestart' }],
    relayer: { receiptPollMs: 2_000 },
    replicas: { count: 2, restoreWindowMs: 1_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('relayer 1: retry UPSTREAM_RPC the shared state (Redis, RELAYER_REDIS_URL) has a new epoch')
})

test('replicas: a replica restarted with an order pending re-publishes it for as long as any outcome lives (seed 683)', async () => {
  // Replica 1 signs order 36 while every request to the node times out: its broadcast unanswered, the slot is due to be sent
  // again (send time 0). It crashes holding the order's claim and restarts; re-publishing the pending tx with a lifetime
  // measured from that send time (1 s) let it expire, and replica 2, taking the claim once its lease ended, sent the order too.
  const plan: Plan = {
    seed: 683,
    blockMs: 2_000,
    orders: [{ id: 75, at: 12_953, replica: 0 }, { id: 36, at: 13_321, replica: 0 }, { id: 36, at: 15_367, replica: 1 }],
    faults: [{ at: 13_136, kind: 'timeouts', forMs: 14_735 }, { at: 19_947, kind: 'crash', downMs: 3_922, replica: 0 }],
    relayer: { receiptPollMs: 250 },
    replicas: { count: 2, restoreWindowMs: 1_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
})

test('a run ends only once every mined slot is final: a reorg after the last order is followed first (seed 1318)', async () => {
  // Order 96's tx is mined at 12 s; a 4-deep reorg at 36 s mines it again after the order expired (28 s), and it reverts.
  // Nothing is pending or pooled then: a run ending there would leave the journal's "settled" unchecked against the chain.
  const plan: Plan = {
    seed: 1318,
    blockMs: 12_000,
    orders: [{ id: 96, at: 9_171, expiresAfterMs: 18_890 }],
    faults: [{ at: 10_495, kind: 'crash', downMs: 2_163 }, { at: 35_953, kind: 'reorg', depth: 4 }],
    relayer: { receiptPollMs: 2_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  // Its fifth confirmation is the block at 84 s.
  expect(result.stats.simulatedMs).toBeGreaterThanOrEqual(84_000)
})

test('replicas: a run is quiet only once each replica\'s shared state is whole again (seed 2597)', async () => {
  // A slow network past Redis's command timeout ends at 65 s; both replicas then find a new epoch and restore for 5 s, one
  // later than the other. Replaying the orders while one still restores gets a "new epoch" refusal, then the settlement.
  const plan = (await Bun.file(new URL('./plans/seed2597.json', import.meta.url)).json()) as Plan
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('relayer 2.2 info: shared state whole again')
})

test('replicas: a tx the node refuses when sent again has its nonce filled, and its client is told to send the order again, never to sign a new one (seed 2658)', async () => {
  // Order 19 goes to replica 2, then to replica 1, which waits on its claim. Replica 2's tx is dropped from the pool and the
  // node refuses it when it is sent again: its nonce is filled. Its client must hear that the order can still settle
  // (UPSTREAM_RPC): replica 1 takes the released claim and settles it.
  const plan: Plan = {
    seed: 2658,
    blockMs: 12_000,
    orders: [
      { id: 70, at: 5_312, replica: 0 }, { id: 68, at: 6_058, replica: 0 }, { id: 62, at: 7_728, replica: 0 }, { id: 68, at: 8_157, replica: 1 },
      { id: 137, at: 11_115, replica: 0 }, { id: 59, at: 11_258, replica: 0 }, { id: 118, at: 11_281, replica: 1 }, { id: 63, at: 11_351, replica: 0 },
      { id: 33, at: 11_856, replica: 1 }, { id: 137, at: 11_961, replica: 1 }, { id: 78, at: 12_238, replica: 0 }, { id: 146, at: 12_723, replica: 1 },
      { id: 67, at: 12_796, replica: 0 }, { id: 24, at: 13_047, replica: 1 }, { id: 19, at: 15_024, replica: 1 }, { id: 19, at: 15_116, replica: 0 },
      { id: 2, at: 16_619, replica: 1 },
    ],
    faults: [
      { at: 9_424, kind: 'refuseSends', forMs: 702 }, { at: 14_486, kind: 'crash', downMs: 412, replica: 0 }, { at: 16_706, kind: 'dropPool', count: 2 },
      { at: 18_651, kind: 'refuseSends', forMs: 6_999 }, { at: 42_597, kind: 'redisRestart' },
    ],
    relayer: { receiptPollMs: 250 },
    replicas: { count: 2, restoreWindowMs: 5_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toMatch(/relayer 2\.2 warn: tx 0x[0-9a-f]{64} was no longer known to the node and the node refuses it as signed \(transaction type not supported\); filled nonce \d+ with a 0-value transfer/)
})

test('replicas: an order settled, reorged out and mined again is re-published after Redis restarts, and a request past its window is answered its settlement (seed 2219)', async () => {
  // Order 194 (its window ends at 59 s) is mined at 46 s by replica 2, taken out by a 3-deep reorg and mined again at 50 s.
  // Redis restarts empty at 53.8 s: the re-mined slot (its send time 0 since the reorg) must be re-published, and a request
  // at replica 1 once the window has passed must hear the settlement, not AUTH_EXPIRED ("re-sign"), which would pay twice.
  const plan: Plan = {
    seed: 2219,
    blockMs: 2_000,
    orders: [{ id: 194, at: 45_174, expiresAfterMs: 13_919, replica: 1 }, { id: 194, at: 49_111, replica: 0 }],
    faults: [{ at: 28_976, kind: 'crash', downMs: 1_837, replica: 1 }, { at: 48_588, kind: 'reorg', depth: 3 }, { at: 53_831, kind: 'redisRestart' }],
    relayer: { receiptPollMs: 1_000 },
    replicas: { count: 2, restoreWindowMs: 1_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('relayer 2.3 warn: a reorg replaced the chain above block 21')
})

test('replicas: a slow signer holds a batch past an order\'s window; it is answered, never sent (seed 73)', async () => {
  // Order 51 comes at 12.9 s and its window ends at 26 s; the signer takes 10 to 20 s a batch from 12.5 s. Its tx, signed
  // after the window closed and broadcast, would revert, paid by the key.
  const plan: Plan = {
    seed: 73,
    blockMs: 250,
    orders: [{ id: 51, at: 12_879, expiresAfterMs: 13_994, replica: 0 }],
    faults: [{ at: 10_029, kind: 'redisRestart' }, { at: 12_496, kind: 'slowSigner', latencyMs: 20_223, forMs: 4_761 }],
    relayer: { receiptPollMs: 250, maxFeePerGasWei: 8_000_000 },
    replicas: { count: 2, restoreWindowMs: 1_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('fault over: slowSigner')
})

test('replicas: a replay that sends an order and waits out its receipt leaves the chain to change; the next replay may name the tx that settled it (seed 8219)', async () => {
  // Once quiet, an order never settled (its last send refused while Redis restored) is sent by the first replay; its tx,
  // stuck at the key's next nonce on 12 s blocks, is replaced, and no receipt comes within the 30 s wait: that answer is
  // the relayer's 502 naming the first tx. The second replay is answered from the replacement, which settled it.
  const plan = (await Bun.file(new URL('./plans/seed8219.json', import.meta.url)).json()) as Plan
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
})

test('replicas: a claim whose lease ran out while its replica was cut off from Redis is dropped, not taken again (seed 13483)', async () => {
  // A slow signer (24.7 s a batch) holds replica 1's batch while it is cut off from Redis (56–72 s); its claims expire and
  // replica 2 takes one of the orders and settles it. Back in touch, replica 1 must not read its lapsed claims as Redis
  // having lost state, take the order again and send the tx it signed for it: that second tx was mined and reverted.
  const plan = (await Bun.file(new URL('./plans/seed13483.json', import.meta.url)).json()) as Plan
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
})

test('a backlog of mined slots the receipt watcher left behind does not hold back the lost tx at the key\'s next nonce (seed 10950)', async () => {
  // Receipts served late (30–36 s) while 350 txs are mined, then the RPC timing out (37–48 s) while the next batches get no
  // answer and the node never takes them: the mined slots are left to the nonce keeper, 32 a round every 16 s. The lost tx
  // at the key's next nonce must be sent again in the first round after the outage, not once the backlog is through.
  const plan = (await Bun.file(new URL('./plans/seed10950.json', import.meta.url)).json()) as Plan
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
})

test('a reorg that puts another block at the same number between the nonce keeper\'s two looks starts the suspicion over (seed 983)', async () => {
  // Both txs are mined in block 1 at 2 s; the node's tx index lags its blocks by 456 ms, so a look then finds no receipt.
  // A 3-deep reorg at 3 s replaces block 1 and the same txs are mined again in the new block 1 at 4 s, again unindexed for a
  // moment. Two looks at "block 1", two seconds apart, looked at two different blocks: the slot is the key's own, never foreign.
  const plan: Plan = {
    seed: 983,
    blockMs: 2_000,
    orders: [{ id: 162, at: 83 }, { id: 75, at: 470, expiresAfterMs: 6_991 }],
    faults: [{ at: 1_635, kind: 'indexLag', lagMs: 456, forMs: 18_758 }, { at: 2_986, kind: 'reorg', depth: 3 }],
    relayer: { receiptPollMs: 250, maxFeePerGasWei: 7_000_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).not.toContain('was taken by a transaction not in this relayer')
})

test('replicas: a claim Redis kept while it did not answer stays the replica\'s own when it re-publishes, renewed while its slow signer works (seed 2149)', async () => {
  // Order 186 comes to replica 2 at 32.4 s and, a moment later, to replica 1, which waits on the claim. The signer takes
  // 9 to 18 s a batch; Redis answers 2.1 s late from 34.3 s, so both replicas find the shared state unavailable and
  // re-publish their claims once it answers. Re-published with a new token, replica 2's claim was found "held", its
  // renewals stopped, and 10 s later replica 1 took the order and sent it too: both txs were mined.
  const plan: Plan = {
    seed: 2149,
    blockMs: 12_000,
    orders: [{ id: 92, at: 32_310, replica: 0 }, { id: 186, at: 32_444, replica: 1 }, { id: 186, at: 32_854, replica: 0 }],
    faults: [{ at: 19_673, kind: 'slowSigner', latencyMs: 17_966, forMs: 18_704 }, { at: 34_284, kind: 'redisSlow', latencyMs: 2_099, forMs: 637 }],
    relayer: { receiptPollMs: 250 },
    replicas: { count: 2, restoreWindowMs: 5_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  const steps = result.lastSteps.join('\n')
  expect(steps).toContain('relayer 2.2 info: shared state whole again')
  // Replica 2 still holds the claim once its tx is signed, and sends the order itself.
  expect(steps).not.toContain('was lost before its transaction was broadcast')
})

test('a replacement whose order\'s window closes while a slow signer signs it is never sent; the nonce is filled (seed 3737)', async () => {
  // Order 231 comes at 55.9 s, its window ends at 66 s; the signer takes 4 to 8 s a signature from 55.7 s, and the base
  // fee rises fivefold at 59.9 s, pricing its tx out. The nonce keeper's replacement, judged before it was signed, was
  // signed after the window closed: broadcast, it reverted once the base fee fell, paid by the key.
  const plan: Plan = {
    seed: 3737,
    blockMs: 250,
    orders: [{ id: 231, at: 55_865, expiresAfterMs: 10_143, replica: 0 }],
    faults: [{ at: 55_748, kind: 'slowSigner', latencyMs: 7_964, forMs: 17_043 }, { at: 59_903, kind: 'baseFeeSpike', factor: 5, forMs: 12_435 }],
    relayer: { receiptPollMs: 250, maxFeePerGasWei: 4_000_000 },
    replicas: { count: 2, restoreWindowMs: 5_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('its order can no longer settle (the order expired); filled nonce 0')
})

test('replicas: a replica cut off from Redis right after its broadcast leaves its tx there; the replica that takes the lapsed claim follows it (seed 512)', async () => {
  // Order 23 comes to replica 2 at 48.3 s, which broadcasts it at once; 51 ms later it is cut off from Redis for 11 s,
  // before its heartbeat published the pending tx. Replica 1, asked for the same order, waited on the claim, took it once
  // the lease ran out, found nothing published and sent the order too: both txs were mined in the next 12 s block.
  const plan: Plan = {
    seed: 512,
    blockMs: 12_000,
    orders: [{ id: 23, at: 48_271, replica: 1 }, { id: 23, at: 48_650, replica: 0 }],
    faults: [{ at: 32_338, kind: 'reorg', depth: 3 }, { at: 48_322, kind: 'redisPartition', replica: 1, forMs: 10_953 }],
    relayer: { receiptPollMs: 2_000 },
    replicas: { count: 2, restoreWindowMs: 1_000 },
  }
  const result = await runPlan(plan)
  expect(result.violations).toEqual([])
  expect(result.lastSteps.join('\n')).toContain('block 3: 1 txs')
})
