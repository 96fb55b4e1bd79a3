import { Database } from 'bun:sqlite'
import { type Address, custom, type Hex, keccak256, toHex } from 'viem'
import { parseOutcome } from '../relayer/replicas/index.ts'
import { authorizationSafetyMarginSeconds } from '../relayer/steps/checkAuthorizationWindow.ts'
import type { SendRequest } from '../relayer/submitter/sendRequest.ts'
import type { Logger } from '../shared/index.ts'
import { type Answer, createChainChecks, finalChecks, type GivenAnswer, type Violation } from './invariants.ts'
import { activeMs, type Plan, type PlannedFault } from './plan.ts'
import { createRandom } from './random.ts'
import { relayAtReplica } from './replicaPath.ts'
import { createSimNode, settleSelector } from './simNode.ts'
import { createFaults } from './faults.ts'
import { createSimRedis } from './simRedis.ts'
import { type SimRelayer, startSimRelayer } from './simRelayer.ts'
import { createVirtualTime, type TimerOwner } from './virtualTime.ts'

/** What a run saw: the invariants it broke (none is a pass), its last steps, and how much it simulated. */
export type RunResult = { violations: Violation[]; lastSteps: string[]; stats: { orders: number; faults: number; steps: number; blocks: number; simulatedMs: number } }

const chainId = 421614
/** Each relayer process's own gas key: the first, and one more per replica. */
const keyOf = (index: number) => `0x${(0xa1 + index).toString(16).padStart(40, '0')}` as Address
const broker = '0x00000000000000000000000000000000000000b2' as Address
/** After the last order and fault: the most time for every pending tx to be mined and final (a run ends once quiet). */
const quietMs = 240_000
const keptSteps = 60
/** The pipeline's margin past the next block an order's authorization must still hold for (authorizationSafetyMarginSeconds). */
const authorizationMarginMs = Number(authorizationSafetyMarginSeconds) * 1_000
/** How long a relayer that exited waits to be started again (RestartSec of deploy/systemd/order-relay.service). */
const restartSecMs = 10_000
/** RELAYER_CONFIRMATIONS of the simulated relayer; the plan's reorgs are at most one block shallower. */
export const confirmations = 5

/**
 * Runs one plan in a simulated world, step by step in virtual time: the relayer's real
 * submitter (batch sender, nonce keeper, receipt watcher, slot life, journal) against a
 * simulated node, its orders and faults as the plan says, crashes and restarts on the
 * same journal; with replicas, each process with its own key and journal and the real
 * shared state (claims, epoch, outcomes) on a simulated Redis that runs the relayer's
 * own scripts. The invariants are checked after every block and once the run is quiet.
 * The same plan gives the same steps and the same result (random ids, as the claims'
 * tokens, come from the seed too).
 *
 * @example
 * const result = await runPlan(planFor(7))
 * if (result.violations.length) console.log(result.violations, result.lastSteps)
 */
export async function runPlan(plan: Plan): Promise<RunResult> {
  const time = createVirtualTime(Date.UTC(2026, 0, 1))
  const random = createRandom(plan.seed)
  const count = plan.replicas?.count ?? 1
  const keys = Array.from({ length: count }, (_, i) => keyOf(i))
  const node = createSimNode({ chainId, keys, broker, random, now: time.now })
  const redis = plan.replicas ? createSimRedis({ now: time.now, random }) : undefined
  const steps: string[] = []
  const note = (line: string) => {
    steps.push(`[${((time.now() - Date.UTC(2026, 0, 1)) / 1000).toFixed(3)} s] ${line}`)
    if (steps.length > keptSteps * 2) steps.splice(0, steps.length - keptSteps)
  }
  const violations: Violation[] = []
  const afterBlock = createChainChecks(node)
  const answers: GivenAnswer[] = []
  const expiries = new Map<Hex, number>()
  const orderHash = (id: number) => keccak256(toHex(`order ${plan.seed} ${id}`))
  const processes: (SimRelayer | undefined)[] = Array.from({ length: count }, () => undefined)
  const snapshots: (Uint8Array | undefined)[] = Array.from({ length: count }, () => undefined)
  let generation = 0
  let stepCount = 0
  /** The processes of the orders sent whose answer has not come (one that crashed never answers them). */
  const waiting = new Set<{ owner: TimerOwner }>()

  const uninstall = time.install()
  // Random ids (claim tokens, epochs) from the seed, so that a run replays step for step.
  const realRandomUUID = crypto.randomUUID
  crypto.randomUUID = () => {
    const hex = Array.from({ length: 32 }, () => random.int(16).toString(16)).join('')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}` as ReturnType<typeof crypto.randomUUID>
  }
  try {
    /** When the next block is mined (virtual ms): blocks come every blockMs from the start. */
    const nextBlockAt = () => Math.ceil((time.now() + 1) / plan.blockMs) * plan.blockMs
    const network = { slowMs: 0 }
    // Milliseconds one way between the relayer and the node: a few, or up to `slowMs` while the network is slow.
    const latency = () => (network.slowMs > 0 ? random.between(network.slowMs / 4, network.slowMs) : random.between(1, 15))
    // How long a signature takes: at once, or up to `slowMs` while the signer is slow.
    const signer = { slowMs: 0 }
    const signDelay = () => (signer.slowMs > 0 ? random.between(signer.slowMs / 2, signer.slowMs) : 0)

    /** One JSON-RPC call: the request reaches the node after a delay, its answer comes back after another; a dead process gets neither. */
    function transport(owner: TimerOwner) {
      return custom(
        {
          request: ({ method, params }: { method: string; params?: unknown }) =>
            new Promise((resolve, reject) => {
              setTimeout(() => {
                let answer: unknown
                let failure: unknown
                try {
                  answer = node.request(method, (params as unknown[] | undefined) ?? [])
                } catch (error) {
                  failure = error
                }
                setTimeout(() => (failure === undefined ? resolve(answer) : reject(failure)), latency())
              }, latency())
            }),
        },
        { retryCount: 0 },
      )
    }

    /** Starts relayer process `index` on its journal as the last crash left it (a new one at first). */
    async function start(index: number): Promise<void> {
      const owner: TimerOwner = { name: count > 1 ? `relayer ${index + 1}.${++generation}` : `relayer ${++generation}`, alive: true }
      const snapshot = snapshots[index]
      const database = snapshot ? Database.deserialize(snapshot, { strict: true }) : new Database(':memory:', { strict: true })
      // The process's log lines are steps of the run too.
      const logger: Logger = { info: (line) => note(`${owner.name} info: ${line}`), warn: (line) => note(`${owner.name} warn: ${line}`), error: (line) => note(`${owner.name} error: ${line}`) }
      await time.runAs(owner, async () => {
        await startSimRelayer(
          {
            owner,
            database,
            chainId,
            key: keys[index]!,
            keyIndex: index,
            logger,
            transport: transport(owner),
            signDelayMs: signDelay,
            receiptPollMs: plan.relayer.receiptPollMs,
            // A reorg as deep as the confirmations would undo what the relayer was told is final: the plan's are shallower.
            confirmations,
            ...(plan.relayer.maxFeePerGasWei !== undefined ? { maxFeePerGasWei: plan.relayer.maxFeePerGasWei } : {}),
            onSigned(raw) {
              const fee = node.signed(raw).maxFeePerGas
              const cap = plan.relayer.maxFeePerGasWei
              if (cap !== undefined && fee > BigInt(cap)) violations.push({ invariant: 'a tx was signed over the fee cap', detail: `maxFeePerGas ${fee} over RELAYER_MAX_FEE_PER_GAS_WEI ${cap}` })
            },
            // The chain clock: the next block's time.
            minedAt: async () => BigInt(nextBlockAt()) / 1_000n,
            wouldRevert(order) {
              if (!order) return undefined
              if (node.settledBy(order)) return { reverts: 'the order is settled' }
              const expiresAt = expiries.get(order)
              if (expiresAt !== undefined && time.now() >= expiresAt) return { reverts: 'the order expired' }
              return undefined
            },
            ...(redis && plan.replicas ? { shared: { connection: redis.connection(latency, index), restoreWindowMs: plan.replicas.restoreWindowMs } } : {}),
          },
          (relayer) => {
            processes[index] = relayer
            note(`${owner.name} starts`)
          },
        )
        note(`${owner.name} ready`)
      }).catch((error: unknown) => {
        // A relayer that cannot start (Redis refusing its connection) exits; its service manager starts it again.
        if (!owner.alive) return
        owner.alive = false
        snapshots[index] = database.serialize()
        processes[index] = undefined
        note(`${owner.name} exits: ${(error as Error).message}; started again in ${restartSecMs} ms`)
        setTimeout(() => void start(index), restartSecMs)
      })
    }

    function crash(index: number, downMs: number) {
      const dead = processes[index]
      if (!dead) return
      dead.owner.alive = false
      // What it committed is what a restart finds (a commit here is on disk at once).
      snapshots[index] = dead.database.serialize()
      processes[index] = undefined
      note(`${dead.owner.name} crashes; back in ${downMs} ms`)
      setTimeout(() => void start(index), downMs)
    }

    /** The pipeline's window check (checkAuthorizationWindow.ts): refused unless the order is still valid 2 s past the next block. */
    function admitted(order: Hex): Answer | undefined {
      const expiresAt = expiries.get(order)
      return expiresAt !== undefined && expiresAt <= nextBlockAt() + authorizationMarginMs ? { kind: 'refused', code: 'AUTH_EXPIRED', message: 'authorization window has passed' } : undefined
    }

    /**
     * A replica's checks before it broadcasts: the window, then the simulation at the
     * pending state (simulate.ts), which finds an order another tx settled and answers it
     * from the chain (the replay answer naming that tx) without sending. A passed window
     * is answered only for an order that did not settle (settledAnswers.ts, `answerExpired`).
     */
    function checkedAtReplica(order: Hex): Answer | undefined {
      const settled = node.settledBy(order)
      if (settled) return { kind: 'elsewhere', status: 'settled', hash: settled }
      return admitted(order)
    }

    /** What the relayer sends for an order: the Broker's settle call, with the authorization's end. */
    function requestOf(order: Hex): SendRequest {
      const expiresAt = expiries.get(order)
      return { to: broker, data: `${settleSelector}${order.slice(2)}` as Hex, gas: 150_000n, orderHash: order, ...(expiresAt !== undefined ? { validBefore: BigInt(expiresAt / 1_000) } : {}) }
    }

    /**
     * Replicas, once quiet: each order's client sends it again, twice, to the replica it
     * last sent it to. Nothing else changes the chain meanwhile, so the two answers must
     * be the same, unless the first left the chain to change: it sent an order no tx settled
     * yet, and its tx had no receipt within the wait (the relayer's 502 naming it; it may be
     * replaced, and the second is answered from the tx that settled it). Each answer joins
     * the final checks.
     */
    async function replayTwice(): Promise<void> {
      const last = new Map<Hex, number>()
      for (const planned of plan.orders) last.set(orderHash(planned.id), planned.replica ?? 0)
      await Promise.all(
        [...last].map(async ([order, replica]) => {
          const target = processes[replica]
          if (!target?.ready) return
          const ask = () => time.runAs(target.owner, () => relayAtReplica(target, order, requestOf(order), () => checkedAtReplica(order)))
          const first = await ask()
          const second = await ask()
          answers.push({ order, relayer: replica, answer: first }, { order, relayer: replica, answer: second })
          const settling = first.kind === 'sent' && first.pending === true
          if (!settling && JSON.stringify(first) !== JSON.stringify(second)) {
            violations.push({ invariant: 'a request sent again got another answer', detail: `order ${order} at relayer ${replica + 1}: ${JSON.stringify(first)}, then ${JSON.stringify(second)}` })
          }
        }),
      )
    }

    /**
     * Nothing left to happen: every process up (a replica's shared state whole again), every
     * order answered, nothing pending in a journal or pooled at the node, and every mined slot
     * final (its confirmations seen, so a reorg before them has been followed).
     */
    function quiet(): boolean {
      return (
        [...waiting].every((sent) => !sent.owner.alive) &&
        processes.every((relayer, i) => relayer?.ready === true && (relayer.replicas?.state.whole ?? true) && relayer.journal.pendingCount() === 0 && relayer.journal.unconfirmedCount() === 0 && node.pooledOf(keys[i]!) === 0)
      )
    }

    function send(id: number, expiresAfterMs: number | undefined, replica: number) {
      const order = orderHash(id)
      // Authorizations end on a whole second, as validBefore does; an order sent again keeps its first expiry.
      if (expiresAfterMs !== undefined && !expiries.has(order)) expiries.set(order, Math.floor((time.now() + expiresAfterMs) / 1_000) * 1_000)
      node.addOrder({ hash: order, expiresAt: expiries.get(order) })
      const given: GivenAnswer = { order, relayer: replica, answer: { kind: 'none' } }
      answers.push(given)
      const target = processes[replica]
      if (!target?.ready) {
        // A connection refused: the client heard no decision and may try again, here or elsewhere.
        given.answer = { kind: 'retry', code: 'UNREACHABLE', message: 'no relayer listening' }
        return
      }
      const admit = () => admitted(order)
      const request = requestOf(order)
      const sent = { owner: target.owner }
      waiting.add(sent)
      const answered = (answer: Answer) => {
        waiting.delete(sent)
        given.answer = answer
        if (answer.kind === 'refused' || answer.kind === 'retry') note(`order ${id} at relayer ${replica + 1}: ${answer.kind} ${answer.code} ${answer.message}`)
      }
      if (target.replicas) {
        time.runAs(target.owner, () => relayAtReplica(target, order, request, () => checkedAtReplica(order))).then(answered)
        return
      }
      const refused = admit()
      if (refused) return answered(refused)
      time.runAs(target.owner, () =>
        target.submitter.send(request).then(
          (sent) => answered({ kind: 'sent', nonce: sent.nonce, hash: sent.hash }),
          (error: { code?: string; message?: string }) => answered({ kind: 'refused', code: error.code ?? 'ERROR', message: error.message ?? String(error) }),
        ),
      )
    }

    const fault = createFaults({ node, redis, network, signer, note, crash })

    // The world's own timers: blocks, orders, faults.
    setInterval(() => {
      node.mine()
      const head = node.blocks().at(-1)!
      if (head.txs.length > 0) note(`block ${head.number}: ${head.txs.length} txs, nonces ${head.txs[0]!.nonce}…${head.txs.at(-1)!.nonce}`)
      for (const violation of afterBlock()) violations.push(violation)
    }, plan.blockMs)
    for (const order of plan.orders) setTimeout(() => send(order.id, order.expiresAfterMs, order.replica ?? 0), order.at)
    for (const planned of plan.faults) setTimeout(() => fault(planned), planned.at)
    // Started, not awaited: their reads are answered as the clock moves.
    for (let index = 0; index < count; index++) void start(index)

    const startedAt = Date.UTC(2026, 0, 1)
    const end = startedAt + activeMs + quietMs
    // Once every fault is over, the run ends as soon as it is quiet (checked once a simulated second).
    const faultsOver = startedAt + Math.max(activeMs, ...plan.faults.map(faultEnds)) + 5_000
    /** Steps until quiet (once the faults are over), `until` holds, or the end: whether it got there. */
    const runUntil = async (until: () => boolean): Promise<boolean> => {
      let lookedAt = 0
      while (time.now() < end && violations.length === 0) {
        if (!(await time.step())) return false
        stepCount++
        if (time.now() >= faultsOver && time.now() - lookedAt >= 1_000) {
          lookedAt = time.now()
          if (until()) return true
        }
      }
      return false
    }
    if ((await runUntil(quiet)) && plan.replicas) {
      let replayed = false
      void replayTwice().then(() => (replayed = true))
      await runUntil(() => replayed && quiet())
    }
    if (violations.length === 0) {
      const up = processes.filter((relayer): relayer is SimRelayer => relayer?.ready === true)
      if (up.length < count) violations.push({ invariant: 'the relayer is up at the end', detail: `${count - up.length} of ${count} relayer processes were not running once the faults stopped` })
      else {
        violations.push(
          ...finalChecks({
            node,
            relayers: up.map((relayer, i) => ({ key: keys[i]!, journal: relayer.journal })),
            answers,
            expired: (order) => (expiries.get(order) ?? Number.POSITIVE_INFINITY) <= time.now(),
            ...(redis ? { published: (order: Hex) => parseOutcome(redis.read(`order-relay:${chainId}:outcome:${order.toLowerCase()}`)) } : {}),
          }),
        )
      }
    }
    return {
      violations,
      lastSteps: steps.slice(-keptSteps),
      stats: { orders: plan.orders.length, faults: plan.faults.length, steps: stepCount, blocks: node.blocks().length, simulatedMs: time.now() - Date.UTC(2026, 0, 1) },
    }
  } finally {
    uninstall()
    crypto.randomUUID = realRandomUUID
    for (const relayer of processes) {
      if (!relayer) continue
      relayer.owner.alive = false
      relayer.database.close(false)
    }
  }
}

/** When a fault's effect ends (ms from the start): its window, or a crashed process's restart. */
export function faultEnds(fault: PlannedFault): number {
  if ('forMs' in fault) return fault.at + fault.forMs
  if (fault.kind === 'crash') return fault.at + fault.downMs
  return fault.at
}
