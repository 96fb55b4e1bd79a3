import type { Address, LocalAccount, PublicClient } from 'viem'
import type { Announcer } from './afterSigning.ts'
import { errorLine, type Logger } from '../../shared/index.ts'
import type { Journal, JournalSlot } from '../journal/index.ts'
import { createBatchSender, type Judge, type SendRequest, type Sent } from './batchSender.ts'
import { createFeeCache, type FeeQuote } from './feeCache.ts'
import type { KeyGuard } from './keyGuard.ts'
import { createHeadFeed, type HeadFeed } from './headFeed.ts'
import { createNonceKeeper, type WouldRevert } from './nonceKeeper.ts'
import type { DescribeOutcome } from './slotLookups.ts'
import { createSlotWatch } from './slotWatch.ts'
import { createTxSigner, SignerRefusal, type TxSigner } from './txSigner.ts'

export type SubmitterOptions = {
  client: PublicClient
  /** A client over the same RPC whose transport batches concurrent requests (see batchSender.ts); txs are then broadcast a batch per request. */
  broadcastClient?: PublicClient
  /** Another such client, for the receipt watcher's looks (the head and the next block's tx hashes in one request), apart from the txs' batches. */
  watchClient?: PublicClient
  /** A WebSocket URL of the same node (RELAYER_WS_URL): new heads are pushed, and the watcher looks as each block comes. */
  headFeedUrl?: string
  /** The gas key's address. */
  address?: Address
  /** A local gas key: its address, and the default signer (in this thread) when `signer` is not given. */
  account?: LocalAccount
  /** Signs with the gas key (txSigner.ts); default: in this thread, with `account`. */
  signer?: TxSigner
  chainId: number
  logger: Logger
  journal: Journal
  /** Longest pause between looks for new blocks while txs are pending (the first after a broadcast is an eighth of it). */
  receiptPollMs: number
  feeRefreshMs?: number
  /** How long a tx may go unmined before the node is asked whether it still has it (default 8 polls, at least 1 s). */
  reviveAfterMs?: number
  /** The outcome JSON stored for a mined order tx (see JournalSlot.outcome). */
  describe: DescribeOutcome
  /** Why a lost or stuck tx's order should not be sent again, or sent again at higher fees (its nonce is then filled), or undefined. */
  wouldRevert: WouldRevert
  /** Judges each order at the fees it is signed with (economics/judgeOrder.ts). */
  judge?: Judge
  /** No tx, replacement or filler is signed over this fee cap (RELAYER_MAX_FEE_PER_GAS_WEI). */
  maxFeePerGas?: bigint
  /** The most tip a tx offers (RELAYER_MAX_PRIORITY_FEE_WEI). */
  maxPriorityFeePerGas?: bigint
  /** Told when another process signs with the key (see keyGuard.ts). */
  keyGuard?: KeyGuard
  /** Blocks deep a mined tx must be before its slot is final (RELAYER_CONFIRMATIONS); watched for reorgs until then. */
  confirmations?: number
  /** The latest a tx sent now may be mined at, in unix seconds (the chain clock): each order's `validBefore` is checked against it at signing. */
  minedAt?: () => Promise<bigint>
  /**
   * Where each order's signed tx is made known before it is written or sent (replicas: the
   * shared state, while the order's claim holds; see afterSigning.ts).
   */
  announcer?: Announcer
}

export type Submitter = ReturnType<typeof createSubmitter>

/**
 * Sends transactions from the one gas key and sees them through (docs/relayer-safety.md):
 * the batch sender signs, journals and broadcasts in nonce order; one background
 * loop watches receipts for every pending tx once per new block and, every
 * `reviveAfterMs`, runs the nonce keeper. The loop runs from `start` to `stop`
 * whether or not any client still waits, and resumes every pending tx the journal
 * held at start.
 */
export function createSubmitter(options: SubmitterOptions) {
  const { client, chainId, logger, journal } = options
  const address = options.address ?? options.account?.address
  if (!address) throw new Error('createSubmitter: give the gas key\'s address or account')
  const signer = options.signer ?? (options.account ? createTxSigner({ account: options.account, logger }) : undefined)
  if (!signer) throw new Error('createSubmitter: give a signer, or a local account to sign with')
  const fees = createFeeCache(client, {
    refreshMs: options.feeRefreshMs ?? 5_000,
    logger,
    ...(options.maxFeePerGas !== undefined ? { maxFeePerGas: options.maxFeePerGas } : {}),
    ...(options.maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas: options.maxPriorityFeePerGas } : {}),
  })
  const reviveAfterMs = options.reviveAfterMs ?? Math.max(1_000, options.receiptPollMs * 8)
  const watch = createSlotWatch({ client, batchClient: options.watchClient, journal, logger, describe: options.describe, confirmations: options.confirmations })
  const { watcher, life } = watch
  const keeper = createNonceKeeper({
    client,
    account: { address },
    chainId,
    fees,
    watch,
    logger,
    reviveAfterMs,
    wouldRevert: options.wouldRevert,
    signer,
    ...(options.keyGuard ? { keyGuard: options.keyGuard } : {}),
  })
  const sender = createBatchSender({
    client,
    broadcastClient: options.broadcastClient,
    account: { address },
    chainId,
    life,
    fees,
    logger,
    fillGap: (nonce, why) => keeper.fillGap(nonce, why),
    onBroadcast: () => afterBroadcast(),
    signer,
    ...(options.judge ? { judge: options.judge } : {}),
    ...(options.keyGuard ? { keyGuard: options.keyGuard } : {}),
    ...(options.minedAt ? { minedAt: options.minedAt } : {}),
    ...(options.announcer ? { announcer: options.announcer } : {}),
  })

  const fastest = Math.max(1, Math.ceil(options.receiptPollMs / 8))
  let timer: ReturnType<typeof setTimeout> | undefined
  let running = false
  let again = false
  let stopped = true
  let delay = fastest
  let keeperAt = 0
  let failing = false
  let current: Promise<void> = Promise.resolve()

  function schedule(ms: number) {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(() => (current = loop()), ms)
  }

  let feed: HeadFeed | undefined
  // The newest head the feed pushed: that block exists, so a look may ask for its logs with it.
  let pushedHead: bigint | undefined
  /** A head the feed pushed: remembered (that block exists), then looked at. */
  function onHead(head: bigint) {
    if (pushedHead === undefined || head > pushedHead) pushedHead = head
    lookNow()
  }
  /** Heads came over the feed lately: blocks are pushed, polling is only the safety net. */
  const feedLive = () => feed !== undefined && Date.now() - feed.lastHeadAt < 10_000

  /** Look at once (a look in progress is followed by another). */
  function lookNow() {
    if (running) again = true
    else schedule(0)
  }

  /**
   * A broadcast just went out: look at once, then often, slowing down to receiptPollMs.
   * With a live head feed the block's head says when to look; until it comes, a look
   * every receiptPollMs.
   */
  function afterBroadcast() {
    if (!feedLive()) {
      delay = fastest
      return lookNow()
    }
    delay = options.receiptPollMs
    if (!running && !again) schedule(options.receiptPollMs)
  }

  async function loop() {
    running = true
    try {
      await watcher.tick(pushedHead)
      if (watcher.head !== undefined) feed?.polledHead(watcher.head)
      if (Date.now() >= keeperAt) {
        keeperAt = Date.now() + reviveAfterMs
        await keeper.tick()
      }
      if (failing) logger.info('receipt watcher: the RPC answers again')
      failing = false
    } catch (error) {
      // A signature the nonce keeper asked for failed: the signer's health said so, and the slot is as it was.
      if (!(error instanceof SignerRefusal)) {
        if (!failing) logger.warn(`receipt watcher: the RPC failed (${errorLine(error)}); trying again`)
        failing = true
      }
    } finally {
      running = false
    }
    if (again) {
      again = false
      return schedule(0)
    }
    if (journal.pendingCount() > 0) {
      schedule(delay)
      delay = Math.min(delay * 2, options.receiptPollMs)
    } else if (journal.unconfirmedCount() > 0) schedule(options.receiptPollMs)
    else schedule(reviveAfterMs)
  }

  return {
    address,
    async start() {
      stopped = false
      signer.start()
      // The first price read before the first order (GET /info says it too); a failure is retried by the ticker.
      await fees.fresh().catch(() => undefined)
      fees.start()
      await watcher.prime()
      if (options.headFeedUrl) feed = createHeadFeed({ url: options.headFeedUrl, logger, onHead })
      lookNow()
    },
    /** Stops the loop; resolves once a look in progress is over (the journal may then close). */
    async stop() {
      stopped = true
      clearTimeout(timer)
      feed?.stop()
      fees.stop()
      await current
      signer.stop()
    },
    /** Signs, journals and broadcasts in nonce order; resolves once the node has the tx. */
    send(request: SendRequest): Promise<Sent> {
      return sender.send(request)
    },
    /** The slot once its tx was mined (or its nonce otherwise resolved), or still pending after `timeoutMs`. */
    outcome(nonce: number, timeoutMs: number): Promise<JournalSlot | undefined> {
      return life.outcome(nonce, timeoutMs)
    },
    /** The fee fields the next tx will carry (for a simulation that matches it) and the next block's base fee. */
    currentFees(): Promise<FeeQuote> {
      return fees.current()
    },
    /** The last fees read, without reading (undefined before the first). */
    lastFees(): FeeQuote | undefined {
      return fees.last()
    },
    /** The same, read from the node now (before refusing an order on a price that may have fallen since). */
    freshFees(): Promise<FeeQuote> {
      return fees.fresh()
    },
    /** Forget the local nonce so the next send asks the chain. */
    resync() {
      sender.resync()
    },
    /** Why the gas key's signer takes no new order now (a remote signer or KMS that fails), or undefined. */
    signerDown(): string | undefined {
      return signer.health?.down()
    },
    get queued() {
      return sender.queued
    },
    /** The newest block the receipt watcher has read (undefined before the first). */
    get head(): bigint | undefined {
      return watcher.head
    },
  }
}
