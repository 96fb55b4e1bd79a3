import type { Hex, PublicClient } from 'viem'
import type { Logger } from '../shared/index.ts'
import type { RelaySuccess } from '../wire/index.ts'
import type { RelayerConfig } from './config.ts'
import type { ChainClock } from './chainClock.ts'
import type { createGasLimitCache, Submitter } from './submitter/index.ts'

/** Everything a pipeline step may use; built once by `createRelayer`. */
export type RelayerContext = {
  config: RelayerConfig
  client: PublicClient
  submitter: Submitter
  gasLimits: ReturnType<typeof createGasLimitCache>
  clock: ChainClock
  logger: Logger
  /** Orders being settled now, by orderHash: a duplicate shares the first one's outcome. */
  inflight: Map<Hex, Promise<RelaySuccess>>
  /** Recently settled orderHash → txHash, so a replay can name its settling tx. */
  settled: Map<Hex, Hex>
  /**
   * Orders broadcast whose receipt did not come in time, by orderHash: a retry looks
   * at that tx instead of broadcasting the order a second time.
   */
  unconfirmed: Map<Hex, UnconfirmedBroadcast>
}

/** A broadcast transaction whose outcome the relayer has not seen yet. */
export type UnconfirmedBroadcast = { txHash: Hex; data: Hex; gas: bigint }
