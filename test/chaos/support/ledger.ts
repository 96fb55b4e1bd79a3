import { expect } from 'bun:test'
import { type Address, formatTransactionReceipt, type Hex, type RpcTransactionReceipt, toHex } from 'viem'
import { brokeredEvent } from '../../../src/chain/index.ts'
import type { Devnet } from '../../../src/devnet/index.ts'

/** One answer a client got: the order it was for, the status and body. */
export type Answer = { orderHash: Hex; status: number; body: Record<string, unknown> }

/** Every `Brokered` log of the devnet's Broker: orderHash → settling txHashes. */
export async function brokeredByOrder(devnet: Devnet): Promise<Map<Hex, Hex[]>> {
  const logs = await devnet.publicClient.getLogs({
    address: devnet.manifest.contracts.broker as Address,
    event: brokeredEvent,
    fromBlock: BigInt(devnet.manifest.deployedAt),
    toBlock: 'latest',
  })
  const byOrder = new Map<Hex, Hex[]>()
  for (const log of logs) {
    const orderHash = log.args.orderHash!.toLowerCase() as Hex
    byOrder.set(orderHash, [...(byOrder.get(orderHash) ?? []), log.transactionHash!])
  }
  return byOrder
}

/** Every mined tx from `key` since `fromBlock`: hash and receipt status. */
export async function txsFrom(devnet: Devnet, key: Address, fromBlock: bigint): Promise<{ hash: Hex; status: string }[]> {
  const head = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
  const found: { hash: Hex; status: string }[] = []
  for (let block = fromBlock; block <= head; block++) {
    const receipts = (await devnet.publicClient.request({ method: 'eth_getBlockReceipts', params: [toHex(block)] } as never)) as RpcTransactionReceipt[]
    for (const raw of receipts ?? []) {
      if (raw.from.toLowerCase() !== key.toLowerCase()) continue
      const receipt = formatTransactionReceipt(raw)
      found.push({ hash: receipt.transactionHash, status: receipt.status })
    }
  }
  return found
}

/** Waits (with a deadline) until the key's `latest` nonce equals its `pending` nonce: no tx left in any pool, no gap. */
export async function noncesSettle(devnet: Devnet, key: Address, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [latest, pending] = await Promise.all([
      devnet.publicClient.getTransactionCount({ address: key, blockTag: 'latest' }),
      devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' }),
    ])
    if (latest === pending) return latest
    if (Date.now() > deadline) throw new Error(`the key ${key} still has txs pending: latest nonce ${latest}, pending ${pending}`)
    await Bun.sleep(50)
  }
}

/**
 * The money-safety checks after a scenario: every order in `settle` settled exactly
 * once; no tx from the key reverted except `revertsMadeOnPurpose`; the key's nonces
 * line up; and every answer was true (a 200 names the tx that settled its order; a
 * WOULD_REVERT for a settled order is only the replay answer naming that tx).
 */
export async function expectMoneySafe(
  devnet: Devnet,
  check: { key: Address; fromBlock: bigint; settle: Hex[]; answers: Answer[]; revertsMadeOnPurpose?: number },
) {
  await noncesSettle(devnet, check.key)
  const brokered = await brokeredByOrder(devnet)
  for (const orderHash of check.settle) expect({ orderHash, settledIn: brokered.get(orderHash.toLowerCase() as Hex)?.length ?? 0 }).toEqual({ orderHash, settledIn: 1 })
  for (const [orderHash, txs] of brokered) expect({ orderHash, settledIn: txs.length }).toEqual({ orderHash, settledIn: 1 })
  const reverted = (await txsFrom(devnet, check.key, check.fromBlock)).filter((tx) => tx.status !== 'success')
  expect(reverted.length).toBe(check.revertsMadeOnPurpose ?? 0)
  for (const answer of check.answers) {
    const settledIn = brokered.get(answer.orderHash.toLowerCase() as Hex)?.[0]
    if (answer.status === 200) {
      expect({ orderHash: answer.orderHash, txHash: answer.body.txHash }).toEqual({ orderHash: answer.orderHash, txHash: settledIn })
    } else if (answer.body.code === 'WOULD_REVERT' && settledIn) {
      expect(String(answer.body.message)).toContain(`already settled in tx ${settledIn}`)
    }
  }
}
