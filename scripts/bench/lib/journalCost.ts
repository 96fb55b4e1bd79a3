import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { openJournal } from '../../../src/relayer/journal/index.ts'
import type { NewSlot } from '../../../src/relayer/journal/types.ts'
import { signedTx } from '../../lib/index.ts'
import { median } from './stats.ts'

/** CPU per order of one side, µs (`process.cpuUsage`: every thread of this process, the fsync's included). */
export type JournalSideCost = { userUs: number; systemUs: number; totalUs: number }

export type JournalCost = {
  /** Orders per batch: per commit and per fsync, as the relayer's batch sender writes them. */
  size: number
  file: JournalSideCost
  memory: JournalSideCost
  /** What the file adds per order: file total − memory total (each the sum of its medians over rounds). */
  fileExtraUs: number
}

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as Hex

/**
 * The journal's own cost per order, with a file (`RELAYER_DB` = a fresh file in `dir`)
 * against `:memory:`, in alternating rounds in this process: per batch of `size` orders,
 * what the relayer's journal sees for each batch of automine orders. The slots and their
 * first txs written in one commit and synced (`record`, with the relayer's sizes: 580
 * bytes of calldata in a ~680-byte signed tx), the reads of a settlement (an order's
 * slot, the txs by hash, the slots by nonce, the pending callees), each answer's code,
 * then the outcomes in one commit (`resolveAll`). No chain, no HTTP: the journal alone.
 */
export async function measureJournalCost(dir: string, options: { sizes: number[]; orders: number; rounds: number }): Promise<JournalCost[]> {
  const results: JournalCost[] = []
  for (const size of options.sizes) {
    const sides = { file: [] as JournalSideCost[], memory: [] as JournalSideCost[] }
    for (let round = 0; round < options.rounds; round++) {
      for (const side of round % 2 === 0 ? (['file', 'memory'] as const) : (['memory', 'file'] as const)) {
        const path = side === 'file' ? join(dir, `journal-${size}-${round}.db`) : ':memory:'
        sides[side].push(await runSide(path, size, Math.max(size, options.orders)))
      }
    }
    // The total is the sum of the two medians, so a side's figures always add up.
    const cost = (runs: JournalSideCost[]): JournalSideCost => {
      const userUs = median(runs.map((run) => run.userUs))
      const systemUs = median(runs.map((run) => run.systemUs))
      return { userUs, systemUs, totalUs: userUs + systemUs }
    }
    const file = cost(sides.file)
    const memory = cost(sides.memory)
    results.push({ size, file, memory, fileExtraUs: file.totalUs - memory.totalUs })
  }
  return results
}

async function runSide(path: string, size: number, orders: number): Promise<JournalSideCost> {
  const journal = openJournal(path, { chainId: 31337, address: hex(20) })
  const batches = Math.ceil(orders / size)
  let nonce = 0
  try {
    // Made before the clock starts: the orders' bytes are not the journal's cost.
    const made: NewSlot[][] = Array.from({ length: batches }, () =>
      Array.from({ length: size }, () => {
        const at = nonce++
        return {
          nonce: at,
          orderHash: hex(32),
          consumer: hex(20),
          adapter: hex(20),
          payToken: hex(20),
          tx: { hash: hex(32), nonce: at, raw: signedTx({ nonce: at, to: hex(20), data: hex(580) }), kind: 'order', signedAt: Date.now() },
        }
      }),
    )
    const before = process.cpuUsage()
    for (let batch = 0; batch < batches; batch++) {
      const slots = made[batch]!
      await journal.record(slots)
      for (const slot of slots) journal.byOrder(slot.orderHash!)
      journal.txsByHash(slots.map((slot) => slot.tx.hash))
      journal.slots(slots.map((slot) => slot.nonce))
      journal.pendingCallees()
      journal.resolveAll(slots.map((slot) => ({ nonce: slot.nonce, status: 'settled', txHash: slot.tx.hash, blockNumber: BigInt(batch + 1), outcome: '{"ok":true}' })))
      for (const slot of slots) journal.answered(slot.nonce, 'OK')
    }
    const used = process.cpuUsage(before)
    const done = batches * size
    return { userUs: used.user / done, systemUs: used.system / done, totalUs: (used.user + used.system) / done }
  } finally {
    journal.close()
  }
}
