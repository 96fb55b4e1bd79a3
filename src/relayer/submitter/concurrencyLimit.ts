/**
 * Runs at most `most` of the functions given at once, the others queued in order.
 *
 * @example
 * const limit = createLimit(64)
 * const raws = await Promise.all(txs.map((tx) => limit(() => signer.signTransaction(tx))))
 */
export function createLimit(most: number) {
  let running = 0
  const queued: Array<() => void> = []
  return async function limit<T>(run: () => Promise<T>): Promise<T> {
    // A finished run hands its place straight to the next queued one: no newcomer slips in between.
    if (running >= most) await new Promise<void>((resolve) => queued.push(resolve))
    else running++
    try {
      return await run()
    } finally {
      const next = queued.shift()
      if (next) next()
      else running--
    }
  }
}
