/**
 * Runs tasks one at a time in arrival order. The submitter sends every transaction
 * through it so they reach the node in nonce order: anvil's automine can strand
 * transactions that arrive out of order, and real nodes hold them back.
 */
export function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve()
  let pending = 0
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      pending++
      const result = tail.then(task)
      tail = result.then(
        () => pending--,
        () => pending--,
      )
      return result
    },
    get pending() {
      return pending
    },
  }
}
