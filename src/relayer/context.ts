import type { PublicClient } from 'viem'
import type { Logger } from '../shared/index.ts'
import type { RelayerConfig } from './config.ts'
import type { ChainClock } from './chainClock.ts'
import type { Economics } from './economics/index.ts'
import type { Journal, OrderClaims } from './journal/index.ts'
import type { Replicas, SharedOutcomes } from './replicas/index.ts'
import type { PendingSimulator } from './simulation/index.ts'
import type { SettlementFinder } from './settlementFinder.ts'
import type { createGasLimitCache, KeyGuard, Submitter } from './submitter/index.ts'

/** Everything a pipeline step may use; built once by `createRelayer`. */
export type RelayerContext = {
  config: RelayerConfig
  client: PublicClient
  submitter: Submitter
  gasLimits: ReturnType<typeof createGasLimitCache>
  /** Step 5's `eth_call`s at `pending`, batched under load. */
  simulator: PendingSimulator
  /** What each pay token is worth, what the key spent, and whether an order pays for itself (docs/economics.md). */
  economics: Economics
  clock: ChainClock
  logger: Logger
  /** Every tx the gas key signed and what became of it: the one store of pending txs. */
  journal: Journal
  /** Who is working on an orderHash now: a duplicate waits, then reads the journal. */
  claims: OrderClaims
  /** Orders settled by any relayer, from the Broker's `Brokered` logs (misses cached). */
  settlements: SettlementFinder
  /** Whether another process signs with this key; while it does, no new order is taken. */
  keyGuard: KeyGuard
  /** Relayer replicas sharing Redis (RELAYER_REDIS_URL): where orders broadcast by another replica went. */
  outcomes?: SharedOutcomes
  /** Relayer replicas: whether a new order may be taken (the shared state fails closed, docs/scaling.md), and the claims (released with the order's outcome). */
  replicas?: Pick<Replicas, 'refusal' | 'claims'>
}
