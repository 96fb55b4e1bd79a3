// What every settlement run checks on chain afterwards (never inside the timed part).
import { type Address, type Hex, numberToHex } from 'viem'
import { brokeredEvent } from '../../../src/chain/index.ts'
import type { Devnet } from '../../../src/devnet/index.ts'
import type { RelayRequest } from '../../../src/wire/index.ts'
import { rpc, rpcBatch } from './rpc.ts'

/** Each orderHash's Brokered logs on the devnet: how many of `requests` settled exactly once, how many orderHashes settled twice. */
export async function settledCount(devnet: Devnet, requests: readonly RelayRequest[]): Promise<{ settled: number; twice: number }> {
  const logs = await devnet.publicClient.getLogs({ address: devnet.manifest.contracts.broker, event: brokeredEvent, fromBlock: 0n })
  const seen = new Map<string, number>()
  for (const log of logs) {
    const hash = log.args.orderHash!.toLowerCase()
    seen.set(hash, (seen.get(hash) ?? 0) + 1)
  }
  const settled = requests.filter((request) => seen.get(request.orderHash!.toLowerCase()) === 1).length
  const twice = [...seen.values()].filter((count) => count > 1).length
  return { settled, twice }
}

type Receipt = { from: Address; status: Hex }

/**
 * How many transactions from any of `senders` reverted in blocks after `afterBlock`
 * (every block's receipts, `eth_getBlockReceipts` in batches of 100).
 */
export async function revertedFrom(devnet: Devnet, senders: readonly Address[], afterBlock: bigint): Promise<number> {
  const from = new Set(senders.map((address) => address.toLowerCase()))
  const head = BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
  let reverted = 0
  for (let start = afterBlock + 1n; start <= head; start += 100n) {
    const calls: { method: string; params: unknown[] }[] = []
    for (let block = start; block <= head && block < start + 100n; block++) calls.push({ method: 'eth_getBlockReceipts', params: [numberToHex(block)] })
    for (const receipts of (await rpcBatch(devnet.rpcUrl, calls)) as (Receipt[] | null)[]) {
      for (const receipt of receipts ?? []) if (from.has(receipt.from.toLowerCase()) && receipt.status !== '0x1') reverted++
    }
  }
  return reverted
}
