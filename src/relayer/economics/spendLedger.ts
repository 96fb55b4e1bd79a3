/** What the gas key spent and may still spend over the window. */
export type SpendTotals = {
  /** Wei paid for the txs mined within the window (receipts: gas used × effective gas price). */
  spentWei: bigint
  /** The most the txs not yet mined (or not yet costed) can still cost: gas limit × fee cap each. */
  reservedWei: bigint
  /** Of those, the part of orders paid in tokens the relayer cannot value (RELAYER_UNPRICED_GAS_BUDGET_WEI). */
  unpricedSpentWei: bigint
  unpricedReservedWei: bigint
}

const bucketMs = 1_000

/**
 * The gas key's spending over a sliding window (an hour), for RELAYER_MAX_SPEND_WEI_PER_HOUR
 * and RELAYER_UNPRICED_GAS_BUDGET_WEI: what mined txs cost, kept in one-second buckets, plus
 * a reservation per nonce not yet costed at its worst case (gas limit × fee cap, the
 * highest of the txs signed at it). It is an index of the journal, fed by it
 * (createRelayer wires it), never a store of its own.
 */
export function createSpendLedger(options: { windowMs?: number; now?: () => number } = {}) {
  const windowMs = options.windowMs ?? 3_600_000
  const now = options.now ?? Date.now
  const buckets: Array<{ second: number; wei: bigint; unpriced: bigint }> = []
  const reserved = new Map<number, { wei: bigint; unpriced: boolean }>()
  let spentWei = 0n
  let unpricedSpentWei = 0n
  let reservedWei = 0n
  let unpricedReservedWei = 0n
  // The most recent order's worst case: what the next order is likely to need.
  let lastWorstWei = 0n

  function prune() {
    const oldest = Math.floor((now() - windowMs) / bucketMs)
    while (buckets.length > 0 && buckets[0]!.second <= oldest) {
      const gone = buckets.shift()!
      spentWei -= gone.wei
      unpricedSpentWei -= gone.unpriced
    }
  }

  function unreserve(nonce: number) {
    const held = reserved.get(nonce)
    if (!held) return
    reserved.delete(nonce)
    reservedWei -= held.wei
    if (held.unpriced) unpricedReservedWei -= held.wei
  }

  return {
    /** A tx signed at `nonce` that may cost up to `worstWei`: the nonce's reservation becomes the higher of the two. */
    reserve(nonce: number, worstWei: bigint, unpriced: boolean) {
      lastWorstWei = worstWei
      const held = reserved.get(nonce)
      if (held && held.wei >= worstWei) return
      unreserve(nonce)
      reserved.set(nonce, { wei: worstWei, unpriced })
      reservedWei += worstWei
      if (unpriced) unpricedReservedWei += worstWei
    },
    /** The nonce's tx was mined at `at` and cost `wei`: the reservation ends, the spending counts until it leaves the window. */
    spent(nonce: number | undefined, wei: bigint, at: number, unpriced: boolean) {
      if (nonce !== undefined) unreserve(nonce)
      if (now() - at >= windowMs) return
      const second = Math.floor(at / bucketMs)
      let bucket = buckets.at(-1)
      if (!bucket || bucket.second !== second) {
        // Mined times come in order but for restarts: keep the buckets sorted.
        const at = buckets.findIndex((each) => each.second >= second)
        if (at >= 0 && buckets[at]!.second === second) bucket = buckets[at]!
        else {
          bucket = { second, wei: 0n, unpriced: 0n }
          if (at < 0) buckets.push(bucket)
          else buckets.splice(at, 0, bucket)
        }
      }
      bucket.wei += wei
      spentWei += wei
      if (unpriced) {
        bucket.unpriced += wei
        unpricedSpentWei += wei
      }
    },
    /** The nonce's slot went without a tx mined by this key (refused, or taken by another): its reservation ends. */
    release(nonce: number) {
      unreserve(nonce)
    },
    /** The worst case of the tx signed last (what the next order will likely need). */
    get lastWorstWei() {
      return lastWorstWei
    },
    totals(): SpendTotals {
      prune()
      return { spentWei, reservedWei, unpricedSpentWei, unpricedReservedWei }
    },
    windowMs,
  }
}

export type SpendLedger = ReturnType<typeof createSpendLedger>
