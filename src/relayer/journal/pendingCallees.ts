import type { Database } from 'bun:sqlite'
import type { Hex } from 'viem'
import { parseEip1559 } from './parseEip1559.ts'

/**
 * The contract each tx at a pending nonce calls, by lower-case hash: what a tx calls never
 * changes, and `pendingCallees` runs at every look at a new block, where reading and
 * parsing every pending raw again took ~5 % of the relayer's main thread. Filled as txs
 * are written (up to `calleesKept`, so that it stays small where nothing reads it) or
 * read once, and trimmed to the txs the last call found pending.
 */
export function createPendingCallees(db: Database) {
  let calleeByHash = new Map<string, Hex>()
  const calleesKept = 4_096
  return {
    /** A tx just written, by lower-case hash, and the contract it calls. */
    remember(hash: string, to: Hex) {
      if (calleeByHash.size < calleesKept) calleeByHash.set(hash, to)
    },
    /** The contracts the pending slots call (`to` and adapter), lower-case: where their txs' logs come from. */
    pendingCallees(): Hex[] {
      // Every tx signed at a pending nonce may be the one mined, a replaced one too.
      const hashes = db.query<{ hash: string }, []>("SELECT txs.hash FROM slots JOIN txs ON txs.nonce = slots.nonce WHERE slots.status = 'pending'").all()
      const callees = new Map<string, Hex>()
      for (const { hash } of hashes) {
        let callee = calleeByHash.get(hash)
        if (callee === undefined) {
          const row = db.query<{ raw: string }, [string]>('SELECT raw FROM txs WHERE hash = ?').get(hash)
          if (!row) continue
          callee = parseEip1559(row.raw as Hex).to.toLowerCase() as Hex
        }
        callees.set(hash, callee)
      }
      calleeByHash = callees
      const adapters = db.query<{ adapter: string }, []>("SELECT DISTINCT adapter FROM slots WHERE status = 'pending' AND adapter IS NOT NULL").all()
      return [...new Set([...callees.values(), ...adapters.map(({ adapter }) => adapter.toLowerCase() as Hex)])]
    },
  }
}

export type PendingCallees = ReturnType<typeof createPendingCallees>
