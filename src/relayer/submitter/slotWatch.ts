import type { PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { Journal } from '../journal/index.ts'
import { type BlockPace, createBlockPace } from './blockPace.ts'
import { createChainReads } from './chainReads.ts'
import { createReceiptWatcher } from './receiptWatcher.ts'
import { createSlotLife } from './slotLife.ts'
import { createSlotLookups, type DescribeOutcome } from './slotLookups.ts'

/**
 * The slot life over one journal and the parts that watch it on one RPC: how the chain is
 * read, where mined txs are resolved, the pace of blocks, and the receipt watcher. The
 * batch sender and the nonce keeper take the parts they need from it, so neither asks
 * the other, nor the watcher.
 */
export function createSlotWatch(options: {
  client: PublicClient
  /** A client over the same RPC that puts the requests made together in one JSON-RPC batch. */
  batchClient?: PublicClient | undefined
  journal: Journal
  logger: Logger
  describe: DescribeOutcome
  pace?: BlockPace
  /** RELAYER_CONFIRMATIONS (default 1). */
  confirmations?: number | undefined
}) {
  const { logger } = options
  const life = createSlotLife(options.journal)
  const reads = createChainReads({ client: options.client, batchClient: options.batchClient, logger })
  const pace = options.pace ?? createBlockPace()
  const lookups = createSlotLookups({ reads, life, describe: options.describe, pace, logger })
  const watcher = createReceiptWatcher({ reads, lookups, life, logger, pace, ...(options.confirmations ? { confirmations: options.confirmations } : {}) })
  return { life, reads, pace, lookups, watcher }
}

export type SlotWatch = ReturnType<typeof createSlotWatch>
