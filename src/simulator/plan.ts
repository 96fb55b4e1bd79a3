import { createRandom } from './random.ts'

/** A fault the world switches on at `at` (virtual ms from the start) for `forMs`, or a one-off event. */
export type PlannedFault =
  | { at: number; kind: 'loseSendAnswers' | 'refuseSends' | 'timeouts' | 'lagReads' | 'lateReceipts'; forMs: number }
  | { at: number; kind: 'dropPool'; count: number }
  | { at: number; kind: 'reorg'; depth: number }
  | { at: number; kind: 'baseFeeSpike'; factor: number; forMs: number }
  | { at: number; kind: 'crash'; downMs: number; replica?: number }
  | { at: number; kind: 'indexLag'; lagMs: number; forMs: number }
  | { at: number; kind: 'slowNetwork'; latencyMs: number; forMs: number }
  | { at: number; kind: 'redisDown'; forMs: number }
  | { at: number; kind: 'redisSlow'; latencyMs: number; forMs: number }
  | { at: number; kind: 'redisRestart' }
  | { at: number; kind: 'redisPartition'; replica: number; forMs: number }
  | { at: number; kind: 'slowSigner'; latencyMs: number; forMs: number }

/**
 * An order a client sends at `at`, to replica `replica` (0 when absent); one with
 * `expiresAfterMs` can no longer settle from then on. The same `id` twice is the same
 * order sent again (its expiry is the first send's).
 */
export type PlannedOrder = { id: number; at: number; expiresAfterMs?: number; replica?: number }

/** Relayer replicas: `count` processes, each with its own key and journal, sharing a simulated Redis. */
export type PlannedReplicas = { count: number; restoreWindowMs: number }

/** Everything one simulated run does: decided by its seed, and smaller once shrunk. */
export type Plan = { seed: number; blockMs: number; orders: PlannedOrder[]; faults: PlannedFault[]; relayer: { receiptPollMs: number; maxFeePerGasWei?: number }; replicas?: PlannedReplicas }

/** How long orders and faults come (virtual ms); the run then goes on quietly until everything is final. */
export const activeMs = 60_000

/**
 * The plan a seed decides: the block time, when each order comes (and whether it expires
 * soon), and a handful of faults of every kind the node, the network and the process
 * show. The same seed always gives the same plan.
 *
 * @example
 * planFor(7) // { seed: 7, blockMs: 250, orders: [...], faults: [...] }
 */
export function planFor(seed: number): Plan {
  const random = createRandom(seed ^ 0x5eed)
  const blockMs = random.pick([250, 1_000, 2_000, 12_000])
  const orders: PlannedOrder[] = []
  const count = random.between(40, 320)
  for (let id = 0; id < count; id++) {
    const at = random.int(activeMs)
    orders.push(random.chance(0.15) ? { id, at, expiresAfterMs: random.between(500, 20_000) } : { id, at })
  }
  orders.sort((a, b) => a.at - b.at || a.id - b.id)
  const faults: PlannedFault[] = []
  for (let i = random.int(9); i > 0; i--) {
    const at = random.int(activeMs)
    const kind = random.pick(['loseSendAnswers', 'refuseSends', 'timeouts', 'lagReads', 'lateReceipts', 'dropPool', 'reorg', 'baseFeeSpike', 'crash', 'indexLag', 'slowNetwork'] as const)
    if (kind === 'dropPool') faults.push({ at, kind, count: random.between(1, 4) })
    // Shallower than the relayer's confirmations (world.ts): a deeper one undoes what it was told is final.
    else if (kind === 'reorg') faults.push({ at, kind, depth: random.between(1, 4) })
    else if (kind === 'baseFeeSpike') faults.push({ at, kind, factor: random.between(2, 6), forMs: random.between(1_000, 20_000) })
    else if (kind === 'crash') faults.push({ at, kind, downMs: random.between(0, 5_000) })
    // A node whose tx index follows its blocks by a moment (geth indexes in the background).
    else if (kind === 'indexLag') faults.push({ at, kind, lagMs: random.between(50, 900), forMs: random.between(1_000, 20_000) })
    else if (kind === 'slowNetwork') faults.push({ at, kind, latencyMs: random.between(200, 6_000), forMs: random.between(1_000, 15_000) })
    else faults.push({ at, kind, forMs: random.between(200, 15_000) })
  }
  faults.sort((a, b) => a.at - b.at)
  const receiptPollMs = random.pick([250, 1_000, 2_000])
  // Half the relayers run with a fee cap (RELAYER_MAX_FEE_PER_GAS_WEI) that a base fee spike can pass.
  const plan: Plan = { seed, blockMs, orders, faults, relayer: random.chance(0.5) ? { receiptPollMs, maxFeePerGasWei: random.between(2, 8) * 1_000_000 } : { receiptPollMs } }
  const shared = withReplicas(plan)
  return shared.replicas ? shared : withSlowSigner(withMoreOrders(shared), seed ^ 0x51a1, 0.25)
}

/**
 * A single relayer's seed gets up to 640 more orders over the same minute, drawn from a
 * stream of their own (the rest of the plan is what it is without them): fuller batches
 * and blocks for the same faults, and a seed's fixed cost (the relayer's start, the quiet
 * tail) shared by more orders.
 */
function withMoreOrders(plan: Plan): Plan {
  const random = createRandom(plan.seed ^ 0x0b75)
  const first = plan.orders.reduce((most, order) => Math.max(most, order.id + 1), 0)
  const orders = [...plan.orders]
  for (let id = first, more = random.between(0, 640); id < first + more; id++) {
    const at = random.int(activeMs)
    orders.push(random.chance(0.15) ? { id, at, expiresAfterMs: random.between(500, 20_000) } : { id, at })
  }
  orders.sort((a, b) => a.at - b.at || a.id - b.id)
  return { ...plan, orders }
}

/**
 * With probability `p`, the gas key's signer (a remote signer, KMS) slow for a while: up
 * to 25 s a batch, past the claims' 10 s lease (RELAYER_SIGNER_TIMEOUT_MS allows it), so
 * orders wait between their checks and their signed txs. Drawn from a stream of its own
 * (`stream`): the rest of the plan is what it is without it.
 */
function withSlowSigner(plan: Plan, stream: number, p: number): Plan {
  const signer = createRandom(stream)
  if (!signer.chance(p)) return plan
  const faults: PlannedFault[] = [...plan.faults, { at: signer.int(activeMs), kind: 'slowSigner', latencyMs: signer.between(500, 25_000), forMs: signer.between(1_000, 20_000) }]
  return { ...plan, faults: faults.sort((a, b) => a.at - b.at) }
}

/**
 * A third of the seeds run two replicas sharing a Redis: orders spread over both, some
 * sent again to either (a client retrying elsewhere), Redis down, slow or restarted
 * empty, and a crash hitting either replica. Drawn from a stream of its own, so the
 * plans of single-relayer seeds are what they are without replicas.
 */
function withReplicas(plan: Plan): Plan {
  const random = createRandom(plan.seed ^ 0x2e91)
  if (!random.chance(1 / 3)) return plan
  const count = 2
  const orders: PlannedOrder[] = []
  for (const order of plan.orders) {
    orders.push({ ...order, replica: random.int(count) })
    if (random.chance(0.2)) orders.push({ id: order.id, at: order.at + random.between(0, 4_000), replica: random.int(count) })
  }
  orders.sort((a, b) => a.at - b.at || a.id - b.id)
  const faults: PlannedFault[] = plan.faults.map((fault) => (fault.kind === 'crash' ? { ...fault, replica: random.int(count) } : fault))
  for (let i = random.int(4); i > 0; i--) {
    const at = random.int(activeMs)
    const kind = random.pick(['redisDown', 'redisSlow', 'redisRestart'] as const)
    if (kind === 'redisRestart') faults.push({ at, kind })
    // Slower than the relayer's 1 s command timeout: its commands count as failed while they still run.
    else if (kind === 'redisSlow') faults.push({ at, kind, latencyMs: random.between(300, 2_500), forMs: random.between(500, 10_000) })
    else faults.push({ at, kind, forMs: random.between(200, 10_000) })
  }
  faults.sort((a, b) => a.at - b.at)
  // Half of them with a slow signer: an order then waits between its claim and its signed tx.
  const slow = withSlowSigner({ ...plan, orders, faults, replicas: { count, restoreWindowMs: random.pick([1_000, 5_000]) } }, plan.seed ^ 0x51a0, 0.5)
  return withRestartInOutage(withRedisPartition(slow, plan.seed ^ 0x9a27, 0.5), plan.seed ^ 0x0c7a, 0.25)
}

/**
 * With probability `p`, the node times out every request for 2–15 s and one replica is
 * restarted inside that window: what a supervisor does to a process whose `/ready` fails
 * (a liveness probe, a watchdog). Its orders' broadcasts went unanswered and are due to be
 * sent again when it restarts on its journal and re-publishes them. Drawn from a stream of
 * its own (`stream`): the rest of the plan is what it is without it.
 */
function withRestartInOutage(plan: Plan, stream: number, p: number): Plan {
  const random = createRandom(stream)
  if (!random.chance(p)) return plan
  const at = random.int(activeMs)
  const forMs = random.between(2_000, 15_000)
  const restart: PlannedFault = { at: at + random.between(500, forMs), kind: 'crash', downMs: random.between(0, 5_000), replica: random.int(plan.replicas?.count ?? 1) }
  const faults: PlannedFault[] = [...plan.faults, { at, kind: 'timeouts', forMs }, restart]
  return { ...plan, faults: faults.sort((a, b) => a.at - b.at) }
}

/**
 * With probability `p`, one replica cut off from Redis for a while (a network partition),
 * the other still reaching it: up to 20 s, past the claims' 10 s lease, so a claim the cut
 * off replica holds may lapse and be taken by the other while the first still works on
 * its order. Drawn from a stream of its own (`stream`): the rest of the plan is what it is
 * without it.
 */
function withRedisPartition(plan: Plan, stream: number, p: number): Plan {
  const random = createRandom(stream)
  if (!random.chance(p)) return plan
  const faults: PlannedFault[] = [...plan.faults, { at: random.int(activeMs), kind: 'redisPartition', replica: random.int(plan.replicas?.count ?? 1), forMs: random.between(1_000, 20_000) }]
  return { ...plan, faults: faults.sort((a, b) => a.at - b.at) }
}
