import type { Database } from 'bun:sqlite'
import { type Address, createPublicClient, type Hex, type PublicClient, type Transport } from 'viem'
import { openJournal, type Journal } from '../relayer/journal/index.ts'
import { createReplicas, type RedisConnection, type Replicas } from '../relayer/replicas/index.ts'
import { createSubmitter, type Submitter } from '../relayer/submitter/index.ts'
import type { Logger } from '../shared/index.ts'
import { createSimSigner } from './simSigner.ts'
import type { TimerOwner } from './virtualTime.ts'

/** A relayer process of the simulation: its journal's database outlives a crash; nothing else does. */
export type SimRelayer = { owner: TimerOwner; database: Database; journal: Journal; submitter: Submitter; replicas?: Replicas; ready: boolean }

/** What the world gives a relayer process it starts. */
export type SimRelayerWiring = {
  owner: TimerOwner
  database: Database
  chainId: number
  /** The process's own gas key, and its place among the node's keys. */
  key: Address
  keyIndex: number
  logger: Logger
  transport: Transport
  receiptPollMs: number
  confirmations: number
  maxFeePerGasWei?: number
  /** Heard for each tx as it is signed (the world keeps whether it would revert then). */
  onSigned(raw: Hex): void
  /** How long the next signature takes (ms): 0 but while the signer is slow. */
  signDelayMs(): number
  minedAt(): Promise<bigint>
  /** Whether the slot's order would revert at signing (the submitter's last look before it signs). */
  wouldRevert(orderHash: Hex | undefined): { reverts: string } | undefined
  /** Replicas: the simulated Redis connection and RELAYER_REDIS_RESTORE_MS. */
  shared?: { connection: RedisConnection; restoreWindowMs: number }
}

/**
 * Starts one relayer process as `createRelayer` wires it, on the simulator's edges: the
 * real journal (on the process's database), the real submitter (batch sender, nonce
 * keeper, receipt watcher, slot life) on a transport to the simulated node, and, for
 * replicas, the real shared state (claims, outcomes, epoch, heartbeat) on a connection to
 * the simulated Redis. Resolves once it would serve: the submitter started and the shared
 * state whole (or its wait over, as a relayer's start gives up after the restore window
 * and 10 s). Run it as the process's timer owner.
 */
export async function startSimRelayer(wiring: SimRelayerWiring, started: (relayer: SimRelayer) => void): Promise<SimRelayer> {
  const { owner, database, chainId, key, logger } = wiring
  const journal = openJournal(':memory:', { chainId, address: key }, { database })
  const client = createPublicClient({ transport: wiring.transport, cacheTime: 0 }) as PublicClient
  const replicas = wiring.shared
    ? createReplicas('redis://simulated', {
        logger,
        health: { up() {}, error() {} },
        prefix: `order-relay:${chainId}`,
        journal,
        restoreWindowMs: wiring.shared.restoreWindowMs,
        connection: wiring.shared.connection,
      })
    : undefined
  const submitter = createSubmitter({
    client,
    address: key,
    signer: createSimSigner(wiring.onSigned, wiring.keyIndex, wiring.signDelayMs),
    ...(wiring.maxFeePerGasWei !== undefined ? { maxFeePerGas: BigInt(wiring.maxFeePerGasWei) } : {}),
    chainId,
    logger,
    journal,
    receiptPollMs: wiring.receiptPollMs,
    confirmations: wiring.confirmations,
    minedAt: wiring.minedAt,
    ...(replicas ? { announcer: { announce: (txs) => replicas.announce(txs), notSent: (txs) => replicas.notSent(txs) } } : {}),
    describe: async (_slot, receipt) => (receipt.status === 'success' ? JSON.stringify({ txHash: receipt.transactionHash }) : undefined),
    wouldRevert: async (slot) => wiring.wouldRevert(slot.orderHash?.toLowerCase() as Hex | undefined),
  })
  const relayer: SimRelayer = { owner, database, journal, submitter, ...(replicas ? { replicas } : {}), ready: false }
  started(relayer)
  await submitter.start()
  if (replicas && wiring.shared) await replicas.start(wiring.shared.restoreWindowMs + 10_000)
  relayer.ready = true
  return relayer
}
