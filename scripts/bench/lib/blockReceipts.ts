import type { Hex } from 'viem'
import { rpc, rpcBatch } from './rpc.ts'

type Receipt = { transactionHash: Hex; status: Hex }

/**
 * Receipts found once per new block for every waiting transaction: anvil pushes each
 * new head over its WebSocket (`eth_subscribe` newHeads), and one
 * `eth_getBlockReceipts` per block settles everyone waiting on it. The baselines wait
 * this way, the least a sender can ask of the node: a per-transaction poll costs
 * anvil several calls per order (2.4–3 on automine, where the send returns before
 * the block is mined) and, from 256 clients on 0.25 s blocks, more than the
 * transactions themselves.
 */
export async function watchBlockReceipts(rpcUrl: string, wsUrl = rpcUrl.replace(/^http/, 'ws')) {
  const found = new Map<string, Hex>()
  const waiting = new Map<string, { resolve: (status: Hex) => void; reject: (error: Error) => void }>()
  let fetchedThrough = BigInt(await rpc<Hex>(rpcUrl, 'eth_blockNumber'))
  let failure: Error | undefined
  // Heads are handled one at a time, in order; a skipped head is caught up on the next.
  let queue = Promise.resolve()
  const catchUp = (head: bigint) => {
    queue = queue.then(async () => {
      while (fetchedThrough < head) {
        // Behind by several blocks (automine makes one per transaction): their receipts in one batch.
        const blocks: bigint[] = []
        for (let block = fetchedThrough + 1n; block <= head && blocks.length < 50; block++) blocks.push(block)
        const answers = (await rpcBatch(rpcUrl, blocks.map((block) => ({ method: 'eth_getBlockReceipts', params: [`0x${block.toString(16)}`] })))) as (Receipt[] | null)[]
        for (const receipt of answers.flatMap((receipts) => receipts ?? [])) {
          const hash = receipt.transactionHash.toLowerCase()
          const waiter = waiting.get(hash)
          if (waiter) {
            waiting.delete(hash)
            waiter.resolve(receipt.status)
          } else found.set(hash, receipt.status)
        }
        fetchedThrough = blocks.at(-1)!
      }
    }).catch((error: Error) => {
      failure = error
      for (const waiter of waiting.values()) waiter.reject(error)
      waiting.clear()
    })
  }

  const socket = new WebSocket(wsUrl)
  await new Promise<void>((resolve, reject) => {
    socket.onerror = () => reject(new Error(`cannot open a WebSocket to ${wsUrl}`))
    socket.onopen = () => resolve()
  })
  const subscribed = new Promise<void>((resolve) => {
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: string; method?: string; params?: { result: { number: Hex } } }
      if (message.id === 1) resolve()
      else if (message.method === 'eth_subscription' && message.params) catchUp(BigInt(message.params.result.number))
    }
  })
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
  await subscribed

  return {
    /** The status (`0x1` success) of `hash`'s receipt, once its block is seen. */
    wait(hash: Hex): Promise<Hex> {
      if (failure) return Promise.reject(failure)
      const key = hash.toLowerCase()
      const status = found.get(key)
      if (status !== undefined) {
        found.delete(key)
        return Promise.resolve(status)
      }
      return new Promise((resolve, reject) => waiting.set(key, { resolve, reject }))
    },
    close() {
      socket.close()
    },
  }
}
