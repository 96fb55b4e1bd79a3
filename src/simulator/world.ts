import { Database } from 'bun:sqlite'
import { type Address, createPublicClient, custom, type Hex, keccak256, parseTransaction, type PublicClient, toHex } from 'viem'
import { openJournal, type Journal } from '../relayer/journal/index.ts'
import { authorizationSafetyMarginSeconds } from '../relayer/steps/checkAuthorizationWindow.ts'
import { createSubmitter, type Submitter } from '../relayer/submitter/index.ts'
import type { Logger } from '../shared/index.ts'
import { type Answer, createChainChecks, finalChecks, type Violation } from './invariants.ts'
import { activeMs, type Plan, type PlannedFault } from './plan.ts'
import { createRandom } from './random.ts'
import { createSimNode, settleSelector } from './simNode.ts'
import { createSimSigner } from './simSigner.ts'
import { createVirtualTime, type TimerOwner } from './virtualTime.ts'

/** What a run saw: the invariants it broke (none is a pass), its last steps, and how much it simulated. */
export type RunResult = { violations: Violation[]; lastSteps: string[]; stats: { orders: number; faults: number; steps: number; blocks: number; simulatedMs: number } }

const chainId = 421614
const key = '0x00000000000000000000000000000000000000a1' as Address
const broker = '0x00000000000000000000000000000000000000b2' as Address
/** After the last order and fault: time for every pending tx to be mined and final. */
const quietMs = 240_000
const keptSteps = 60
/** The pipeline's margin past the next block an order's authorization must still hold for (authorizationSafetyMarginSeconds). */
const authorizationMarginMs = Number(authorizationSafetyMarginSeconds) * 1_000
/** RELAYER_CONFIRMATIONS of the simulated relayer; the plan's reorgs are at most one block shallower. */
export const confirmations = 5

/** A relayer process of the simulation: its journal's database outlives a crash; nothing else does. */
type Process = { owner: TimerOwner; database: Database; journal: Journal; submitter: Submitter; ready: boolean }

/**
 * Runs one plan in a simulated world, step by step in virtual time: the relayer's real
 * submitter (batch sender, nonce keeper, receipt watcher, slot life, journal) against a
 * simulated node, its orders and faults as the plan says, crashes and restarts on the
 * same journal. The invariants are checked after every block and once the run is quiet.
 * The same plan gives the same steps and the same result.
 *
 * @example
 * const result = await runPlan(planFor(7))
 * if (result.violations.length) console.log(result.violations, result.lastSteps)
 */
export async function runPlan(plan: Plan): Promise<RunResult> {
  const time = createVirtualTime(Date.UTC(2026, 0, 1))
  const random = createRandom(plan.seed)
  const node = createSimNode({ chainId, key, broker, random, now: time.now })
  const steps: string[] = []
  const note = (line: string) => {
    steps.push(`[${((time.now() - Date.UTC(2026, 0, 1)) / 1000).toFixed(3)} s] ${line}`)
    if (steps.length > keptSteps * 2) steps.splice(0, steps.length - keptSteps)
  }
  const violations: Violation[] = []
  const afterBlock = createChainChecks(node)
  const answers = new Map<Hex, Answer>()
  const expiries = new Map<Hex, number>()
  const orderHash = (id: number) => keccak256(toHex(`order ${plan.seed} ${id}`))
  let process: Process | undefined
  let snapshot: Uint8Array | undefined
  let generation = 0
  let stepCount = 0

  const uninstall = time.install()
  try {
    const baseFee = node.baseFee
    const spikes: number[] = []
    /** The base fee under the spikes on now. */
    const spiked = () => node.setBaseFee(baseFee * BigInt(spikes.reduce((a, b) => a * b, 1)))
    /** When the next block is mined (virtual ms): blocks come every blockMs from the start. */
    const nextBlockAt = () => Math.ceil((time.now() + 1) / plan.blockMs) * plan.blockMs
    // Milliseconds one way between the relayer and the node: a few, or up to `slowMs` while the network is slow.
    let slowMs = 0
    const latency = () => (slowMs > 0 ? random.between(slowMs / 4, slowMs) : random.between(1, 15))

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

    async function start(): Promise<void> {
      const owner: TimerOwner = { name: `relayer ${++generation}`, alive: true }
      const database = snapshot ? Database.deserialize(snapshot, { strict: true }) : new Database(':memory:', { strict: true })
      // The process's log lines are steps of the run too.
      const logger: Logger = { info: (line) => note(`${owner.name} info: ${line}`), warn: (line) => note(`${owner.name} warn: ${line}`), error: (line) => note(`${owner.name} error: ${line}`) }
      await time.runAs(owner, async () => {
        const journal = openJournal(':memory:', { chainId, address: key }, { database })
        const client = createPublicClient({ transport: transport(owner), cacheTime: 0 }) as PublicClient
        const submitter = createSubmitter({
          client,
          address: key,
          signer: createSimSigner((raw) => {
            node.signed(raw)
            const cap = plan.relayer.maxFeePerGasWei
            const fee = parseTransaction(raw).maxFeePerGas ?? 0n
            if (cap !== undefined && fee > BigInt(cap)) violations.push({ invariant: 'a tx was signed over the fee cap', detail: `maxFeePerGas ${fee} over RELAYER_MAX_FEE_PER_GAS_WEI ${cap}` })
          }),
          ...(plan.relayer.maxFeePerGasWei !== undefined ? { maxFeePerGas: BigInt(plan.relayer.maxFeePerGasWei) } : {}),
          chainId,
          logger,
          journal,
          receiptPollMs: plan.relayer.receiptPollMs,
          // A reorg as deep as the confirmations would undo what the relayer was told is final: the plan's are shallower.
          confirmations: confirmations,
          // The chain clock: the next block's time.
          minedAt: async () => BigInt(nextBlockAt()) / 1_000n,
          describe: async (_slot, receipt) => (receipt.status === 'success' ? JSON.stringify({ txHash: receipt.transactionHash }) : undefined),
          wouldRevert: async (slot) => {
            const order = slot.orderHash?.toLowerCase() as Hex | undefined
            if (!order) return undefined
            if (node.settledBy(order)) return { reverts: 'the order is settled' }
            const expiresAt = expiries.get(order)
            if (expiresAt !== undefined && time.now() >= expiresAt) return { reverts: 'the order expired' }
            return undefined
          },
        })
        const started: Process = { owner, database, journal, submitter, ready: false }
        process = started
        note(`${owner.name} starts`)
        await submitter.start()
        started.ready = true
        note(`${owner.name} ready`)
      })
    }

    function crash(downMs: number) {
      const dead = process
      if (!dead) return
      dead.owner.alive = false
      // What it committed is what a restart finds (a commit here is on disk at once).
      snapshot = dead.database.serialize()
      process = undefined
      note(`${dead.owner.name} crashes; back in ${downMs} ms`)
      setTimeout(() => void start(), downMs)
    }

    function send(id: number, expiresAfterMs: number | undefined) {
      const order = orderHash(id)
      // Authorizations end on a whole second, as validBefore does.
      if (expiresAfterMs !== undefined) expiries.set(order, Math.floor((time.now() + expiresAfterMs) / 1_000) * 1_000)
      node.addOrder({ hash: order, expiresAt: expiries.get(order) })
      const target = process
      if (!target?.ready) {
        answers.set(order, { kind: 'refused', code: 'UNREACHABLE', message: 'no relayer listening' })
        return
      }
      // The pipeline's window check (checkAuthorizationWindow.ts): refused unless it is still valid 2 s past the next block.
      const expiresAt = expiries.get(order)
      if (expiresAt !== undefined && expiresAt <= nextBlockAt() + authorizationMarginMs) {
        answers.set(order, { kind: 'refused', code: 'AUTH_EXPIRED', message: 'authorization window has passed' })
        return
      }
      answers.set(order, { kind: 'none' })
      time.runAs(target.owner, () =>
        target.submitter
          .send({ to: broker, data: `${settleSelector}${order.slice(2)}` as Hex, gas: 150_000n, orderHash: order, ...(expiresAt !== undefined ? { validBefore: BigInt(expiresAt / 1_000) } : {}) })
          .then(
          (sent) => {
            answers.set(order, { kind: 'sent', nonce: sent.nonce, hash: sent.hash })
          },
          (error: { code?: string; message?: string }) => {
            answers.set(order, { kind: 'refused', code: error.code ?? 'ERROR', message: error.message ?? String(error) })
            note(`order ${id} refused: ${error.code} ${error.message}`)
          },
        ),
      )
    }

    function fault(planned: PlannedFault) {
      note(`fault: ${JSON.stringify(planned)}`)
      switch (planned.kind) {
        case 'dropPool':
          for (let i = 0; i < planned.count; i++) node.dropOne()
          return
        case 'reorg':
          node.reorg(planned.depth)
          return
        case 'baseFeeSpike': {
          // Spikes that overlap multiply; each one's end takes only its own factor out.
          spikes.push(planned.factor)
          spiked()
          setTimeout(() => {
            spikes.splice(spikes.indexOf(planned.factor), 1)
            spiked()
          }, planned.forMs)
          return
        }
        case 'crash':
          crash(planned.downMs)
          return
        case 'indexLag':
          node.faults.indexLagMs = planned.lagMs
          setTimeout(() => {
            node.faults.indexLagMs = 0
            note('fault over: indexLag')
          }, planned.forMs)
          return
        case 'slowNetwork':
          slowMs = planned.latencyMs
          setTimeout(() => {
            slowMs = 0
            note('fault over: slowNetwork')
          }, planned.forMs)
          return
        default: {
          const kind = planned.kind
          node.faults[kind] = true
          setTimeout(() => {
            node.faults[kind] = false
            note(`fault over: ${kind}`)
          }, planned.forMs)
        }
      }
    }

    // The world's own timers: blocks, orders, faults.
    setInterval(() => {
      node.mine()
      const head = node.blocks().at(-1)!
      if (head.txs.length > 0) note(`block ${head.number}: ${head.txs.length} txs, nonces ${head.txs[0]!.nonce}…${head.txs.at(-1)!.nonce}`)
      for (const violation of afterBlock()) violations.push(violation)
    }, plan.blockMs)
    for (const order of plan.orders) setTimeout(() => send(order.id, order.expiresAfterMs), order.at)
    for (const planned of plan.faults) setTimeout(() => fault(planned), planned.at)
    // Started, not awaited: its reads are answered as the clock moves.
    void start()

    const end = Date.UTC(2026, 0, 1) + activeMs + quietMs
    while (time.now() < end && violations.length === 0) {
      if (!(await time.step())) break
      stepCount++
    }
    if (violations.length === 0) {
      if (!process?.ready) violations.push({ invariant: 'the relayer is up at the end', detail: 'no relayer process was running once the faults stopped' })
      else violations.push(...finalChecks({ node, journal: process.journal, key, answers, expired: (order) => (expiries.get(order) ?? Number.POSITIVE_INFINITY) <= time.now() }))
    }
    return {
      violations,
      lastSteps: steps.slice(-keptSteps),
      stats: { orders: plan.orders.length, faults: plan.faults.length, steps: stepCount, blocks: node.blocks().length, simulatedMs: time.now() - Date.UTC(2026, 0, 1) },
    }
  } finally {
    uninstall()
    if (process) {
      process.owner.alive = false
      process.database.close(false)
    }
  }
}
