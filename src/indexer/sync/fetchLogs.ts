import { type Address, numberToHex, type PublicClient, type RpcLog } from 'viem'
import { OrderRelayError } from '../../errors/index.ts'
import { errorLine } from '../../shared/index.ts'

/**
 * The block range `eth_getLogs` is asked for. A refusal (too many results, range too
 * large, any error) halves the next try, or falls back to the largest range already
 * accepted; after a full-size success it doubles while nothing is known refused, else
 * it bisects between the largest accepted and the smallest refused range, so a node
 * with a fixed limit costs a few refusals (log2 of the gap), not one every other
 * call. After `relearnAfter` successes in a row it tries the refused size once more
 * (one refusal in `relearnAfter + 1` calls against a fixed limit) and forgets the
 * refusal if it passes. Never above `max`.
 */
export function createRangeSizer(max: number, relearnAfter = 16) {
  const limit = BigInt(Math.max(1, max))
  const none = limit + 1n
  let size = limit
  /** Largest range accepted (0: none, or refused since). */
  let good = 0n
  /** Smallest range refused (`none`: nothing refused). */
  let bad = none
  let streak = 0
  return {
    get size() {
      return size
    },
    refused(tried: bigint) {
      if (tried < bad) bad = tried
      if (good >= bad) good = 0n
      size = good > 0n ? good : tried > 1n ? tried / 2n : 1n
      streak = 0
    },
    succeeded(tried: bigint) {
      if (tried < size) return // a short remainder says nothing about the node's limit
      if (tried > good) good = tried
      if (tried >= bad) bad = none // the refused size passes now
      if (++streak >= relearnAfter && bad !== none) {
        streak = 0
        size = bad
        return
      }
      const next = bad === none ? size * 2n : (good + bad) / 2n
      size = next > limit ? limit : next < good ? good : next
    },
  }
}

export type RangeSizer = ReturnType<typeof createRangeSizer>

/** Thrown when the node refuses even a one-block range. */
export class LogsRefusedError extends OrderRelayError<'LOGS_REFUSED'> {
  override name = 'LogsRefusedError'
  constructor(
    readonly block: bigint,
    cause: unknown,
  ) {
    super('LOGS_REFUSED', `eth_getLogs refused block ${block}: ${errorLine(cause)}`, {
      cause,
      fix: "point INDEXER_RPC_URL at a node that serves eth_getLogs for the registry's contracts",
    })
  }
}

export type FetchLogsParameters = {
  address: readonly Address[]
  fromBlock: bigint
  /** Upper bound: the range actually fetched may end earlier. */
  toBlock: bigint
  sizer: RangeSizer
}

/**
 * Fetches the logs of `address` from `fromBlock` on, in one range no larger than
 * the sizer allows, halving the range down to one block while the node refuses.
 * Returns the logs as the node sent them (hex quantities, not viem's formatted
 * `Log`: formatting every log of a range costs ≈ 0.4 µs each, and a backfill keeps
 * only the newest `INDEXER_RETENTION` of them) and the last block they cover.
 *
 * @example
 * const { logs, toBlock } = await fetchLogs(client, { address, fromBlock: 1n, toBlock: head, sizer })
 */
export async function fetchLogs(client: PublicClient, parameters: FetchLogsParameters): Promise<{ logs: RpcLog[]; toBlock: bigint }> {
  const { address, fromBlock, sizer } = parameters
  const span = parameters.toBlock - fromBlock + 1n
  let tried = sizer.size < span ? sizer.size : span
  for (;;) {
    const toBlock = fromBlock + tried - 1n
    try {
      // What client.getLogs sends, without its formatting of every log.
      const logs = await client.request({ method: 'eth_getLogs', params: [{ address: [...address], fromBlock: numberToHex(fromBlock), toBlock: numberToHex(toBlock) }] })
      sizer.succeeded(tried)
      return { logs, toBlock }
    } catch (error) {
      if (tried <= 1n) throw new LogsRefusedError(fromBlock, error)
      sizer.refused(tried)
      tried = sizer.size
    }
  }
}
