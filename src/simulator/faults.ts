import type { PlannedFault } from './plan.ts'
import type { SimNode } from './simNode.ts'
import type { SimRedis } from './simRedis.ts'

/**
 * What the world's faults act on: the node's faults and pool, the simulated Redis (for
 * replicas), the network's latency (`slowMs`, read by the world's transport), how long
 * the gas key's signer takes at most (`signer.slowMs`, read by the simulated signers),
 * and the world's crash of a relayer process.
 */
export type FaultTargets = {
  node: SimNode
  redis: SimRedis | undefined
  network: { slowMs: number }
  signer: { slowMs: number }
  note: (line: string) => void
  crash: (replica: number, downMs: number) => void
}

/**
 * Switches on one planned fault, and off again once its window has passed (on the
 * simulated clock: the world's `setTimeout`). One-off faults (a pool drop, a reorg, a
 * Redis restart, a crash) happen at once. Base fee spikes that overlap multiply, and each
 * one's end takes only its own factor out.
 *
 * @example
 * const fault = createFaults({ node, redis, network, signer, note, crash })
 * setTimeout(() => fault(planned), planned.at)
 */
export function createFaults({ node, redis, network, signer, note, crash }: FaultTargets): (planned: PlannedFault) => void {
  const baseFee = node.baseFee
  const spikes: number[] = []
  /** The base fee under the spikes on now. */
  const spiked = () => node.setBaseFee(baseFee * BigInt(spikes.reduce((a, b) => a * b, 1)))
  /** Runs `end` once the fault's window has passed, and says so. */
  const over = (kind: PlannedFault['kind'], forMs: number, end: () => void) =>
    setTimeout(() => {
      end()
      note(`fault over: ${kind}`)
    }, forMs)

  return (planned) => {
    note(`fault: ${JSON.stringify(planned)}`)
    switch (planned.kind) {
      case 'dropPool':
        for (let i = 0; i < planned.count; i++) node.dropOne()
        return
      case 'reorg':
        node.reorg(planned.depth)
        return
      case 'baseFeeSpike':
        spikes.push(planned.factor)
        spiked()
        setTimeout(() => {
          spikes.splice(spikes.indexOf(planned.factor), 1)
          spiked()
        }, planned.forMs)
        return
      case 'crash':
        crash(planned.replica ?? 0, planned.downMs)
        return
      case 'redisDown':
        redis!.faults.down = true
        over(planned.kind, planned.forMs, () => (redis!.faults.down = false))
        return
      case 'redisSlow':
        redis!.faults.slowMs = planned.latencyMs
        over(planned.kind, planned.forMs, () => (redis!.faults.slowMs = 0))
        return
      case 'redisRestart':
        redis!.restart()
        return
      case 'redisPartition':
        redis!.faults.cutOff.add(planned.replica)
        over(planned.kind, planned.forMs, () => redis!.faults.cutOff.delete(planned.replica))
        return
      case 'indexLag':
        node.faults.indexLagMs = planned.lagMs
        over(planned.kind, planned.forMs, () => (node.faults.indexLagMs = 0))
        return
      case 'slowSigner':
        signer.slowMs = planned.latencyMs
        over(planned.kind, planned.forMs, () => (signer.slowMs = 0))
        return
      case 'slowNetwork':
        network.slowMs = planned.latencyMs
        over(planned.kind, planned.forMs, () => (network.slowMs = 0))
        return
      default: {
        const kind = planned.kind
        node.faults[kind] = true
        over(kind, planned.forMs, () => (node.faults[kind] = false))
      }
    }
  }
}
