// What the settlement benchmarks share: the chain each run starts (automine or
// interval-mined), and the orders and baseline transactions, signed once per
// `bun run bench` before any clock starts.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Address, type Hex, keccak256, parseGwei, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Devnet, findAnvil, startDevnet } from '../../../src/devnet/index.ts'
import type { RelayRequest } from '../../../src/wire/index.ts'
import type { BenchContext } from './context.ts'
import { brokerCalldata, presignOrders } from './orders.ts'

/** `automine`: one block per transaction, as soon as it arrives (anvil's default). `interval`: a block every 0.25 s (Arbitrum's block time), automine off. */
export type ChainKind = 'automine' | 'interval'

export const intervalBlockSeconds = 0.25

/** What the runs of one benchmark share: the orders, signed once, and the baseline's transactions for them. */
export type SettlementWork = {
  chain: ChainKind
  clients: number
  requests: RelayRequest[]
  /** Sender `i % clients` sends `requests[i]`, with local nonces from 0. */
  txs: { addresses: Address[]; perSender: Hex[][] }
}

/** The baseline's senders: one key per client, funded on each fresh devnet. */
const senderKeys = (count: number): Hex[] => Array.from({ length: count }, (_, i) => keccak256(stringToHex(`order-relay bench sender ${i}`)))

/**
 * anvil with `--block-time`: a wrapper script handed to startDevnet as the anvil
 * binary (the devnet harness takes no block time), which adds the flag and `exec`s
 * the real anvil, so the devnet's anvil pid is anvil's own.
 */
function intervalAnvil(context: BenchContext): string {
  const path = join(context.dir, 'anvil-interval')
  writeFileSync(path, `#!/bin/sh\nexec '${findAnvil()}' "$@" --block-time ${intervalBlockSeconds}\n`, { mode: 0o755 })
  return path
}

/**
 * States anvil keeps, in memory, for the settlement chains. With its default (every
 * state kept, those past its in-memory window written to disk, one per new block) a
 * block cost anvil more the longer the chain: runs of 2,000 orders on automine turned
 * slow at a point that moved from run to run (anvil's CPU per 1,000 orders 1.0 s in the
 * first half of a run, 2.2–7.0 s in the second), for either side. A node's history is
 * not what these rows measure; the relayer looks back at most at a reverted tx's block.
 */
export const benchPrunedHistory = 256

export function startChain(context: BenchContext, chain: ChainKind, orders: number): Promise<Devnet> {
  const vaults = [{ vaultId: 1n, slots: orders + 100 }]
  const pruneHistory = benchPrunedHistory
  return startDevnet(chain === 'interval' ? { vaults, pruneHistory, anvilBinary: intervalAnvil(context) } : { vaults, pruneHistory })
}

/** Pre-signs every baseline transaction: sender `i % clients`, local nonces from 0. */
export async function presignTransactions(devnet: Devnet, requests: readonly RelayRequest[], clients: number): Promise<SettlementWork['txs']> {
  const accounts = senderKeys(clients).map((key) => privateKeyToAccount(key))
  const broker = devnet.manifest.contracts.broker
  const probe = accounts[0]!.address
  await devnet.testClient.setBalance({ address: probe, value: 10n ** 22n })
  const estimate = await devnet.publicClient.estimateGas({ account: probe, to: broker, data: brokerCalldata(requests[0]!) })
  // The relayer's own padding of its cached gas limit.
  const gas = (estimate * 13n) / 10n + 25_000n
  const perSender: Hex[][] = accounts.map(() => [])
  for (const [index, request] of requests.entries()) {
    const sender = index % clients
    perSender[sender]!.push(
      await accounts[sender]!.signTransaction({
        type: 'eip1559',
        chainId: devnet.chainId,
        nonce: perSender[sender]!.length,
        to: broker,
        data: brokerCalldata(request),
        gas,
        maxFeePerGas: parseGwei('50'),
        maxPriorityFeePerGas: parseGwei('1'),
      }),
    )
  }
  return { addresses: accounts.map((account) => account.address), perSender }
}
/** Orders by count, and baseline transactions by count and clients, signed once per `bun run bench`. */
const signed = { orders: new Map<number, RelayRequest[]>(), txs: new Map<string, SettlementWork['txs']>() }

/**
 * The orders and the baseline's transactions, signed once per `bun run bench` on a
 * throw-away devnet and shared by every settlement benchmark (each run gets a fresh
 * devnet, which deploys to the same addresses, so the same orders fit every run).
 */
export async function prepareWork(context: BenchContext, chain: ChainKind, options: { orders: number; clients: number; label: string; baseline: boolean }): Promise<SettlementWork> {
  const txsKey = `${options.orders}/${options.clients}`
  let requests = signed.orders.get(options.orders)
  let txs = options.baseline ? signed.txs.get(txsKey) : { addresses: [], perSender: [] }
  if (!requests || !txs) {
    const setup = await startChain(context, 'automine', options.orders)
    try {
      context.log(`${options.label}: signing ${requests ? 0 : options.orders} orders and ${txs ? 0 : options.orders} baseline transactions`)
      requests ??= await presignOrders(setup, options.orders, { label: 'settlement' })
      txs ??= await presignTransactions(setup, requests, options.clients)
    } finally {
      await setup.stop()
    }
    signed.orders.set(options.orders, requests)
    if (options.baseline) signed.txs.set(txsKey, txs)
  }
  return { chain, clients: options.clients, requests, txs }
}
