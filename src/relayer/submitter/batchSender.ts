import type { Address, Hex, PublicClient } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import { keccak256 } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'
import type { Verdict } from '../economics/index.ts'
import type { NewSlot } from '../journal/index.ts'
import type { createFeeCache, FeeQuote } from './feeCache.ts'
import type { KeyGuard } from './keyGuard.ts'
import { nodeSays } from '../rpcErrors.ts'
import { type SendOutcome, sendRaw, sendRawBatch } from './sendRaw.ts'
import type { SlotLife } from './slotLife.ts'
import type { TxSigner } from './txSigner.ts'
import { authorizationSafetyMarginSeconds } from '../authorizationMargin.ts'
import type { Judge, SendRequest, Sent } from './sendRequest.ts'
import { type Announcer, orderTxs, refusedAfterSigning, refusedAtAnnounce } from './afterSigning.ts'

export type { Judge, SendRequest, Sent }

type Queued = { request: SendRequest; attempt: number; resolve: (sent: Sent) => void; reject: (error: unknown) => void }
type Entry = { item: Queued; nonce: number; raw: Hex; hash: Hex }
/** A batch signed at consecutive nonces from `base` and written to the journal, not yet sent. */
type Prepared = { base: number; entries: Entry[] }
/** A send's outcome, or, sending one by one, why a tx was not sent: `held` after a lost answer, `unsent` after a refusal. */
type Result = SendOutcome | { kind: 'held' | 'unsent' }
type Refusal = Extract<SendOutcome, { kind: 'noFunds' | 'nonceTaken' | 'underpriced' | 'refused' }>
const isRefusal = (result: Result): result is Refusal => result.kind === 'noFunds' || result.kind === 'nonceTaken' || result.kind === 'underpriced' || result.kind === 'refused'

/** Most txs signed and written in one journal commit, and broadcast in one JSON-RPC batch. */
export const txsPerBatch = 64

/**
 * The serial send queue with group commit: whatever is queued when it runs is
 * signed at consecutive nonces, written to the journal in one durable commit, and
 * only then broadcast in nonce order: in one JSON-RPC batch (one request for the
 * whole batch, the node's answer for each tx), or, when the node takes no batches,
 * one request after another. A tx the node refuses outright never reached a pool:
 * when no later tx of its batch did either, their slots are dropped and the orders
 * signed again at the freed nonces; when a later one was pooled, the refused nonce
 * is filled so the later ones are not stuck behind it. Nothing the node may hold is
 * ever signed again at another nonce.
 */
export function createBatchSender(options: {
  client: PublicClient
  /** The gas key (only its address is read: the signer signs). */
  account: { readonly address: Address }
  chainId: number
  /** Where each slot's moves are written (slotLife.ts): the sender holds a slot from `recorded` until the node answers its broadcast. */
  life: SlotLife
  fees: ReturnType<typeof createFeeCache>
  logger: Logger
  /**
   * A client whose transport sends the requests made together as one JSON-RPC batch:
   * a batch's txs then reach the node in one request. Without it, one request per tx.
   */
  broadcastClient?: PublicClient
  /** Fills a refused nonce that later pooled txs wait behind (the nonce keeper's fillGap). */
  fillGap: (nonce: number, why: string) => Promise<void>
  /** Called after each batch went out (the receipt watcher looks at once). */
  onBroadcast: () => void
  /** Signs with the gas key (a thread of its own, see txSigner.ts). */
  signer: TxSigner
  /** Judges each order with `terms` at the batch's fees before it is signed; one that does not pay at them is answered, never signed. */
  judge?: Judge
  /** Told when the node refuses a nonce as used by a tx this relayer did not send (another process on the key). */
  keyGuard?: KeyGuard
  /**
   * The latest a tx sent now may be mined at, in unix seconds (the chain clock's `now`):
   * an order's `validBefore` is checked against it before its batch is signed, and again
   * once it is (afterSigning.ts).
   */
  minedAt?: () => Promise<bigint>
  /** Where each order's signed tx is made known before it is written or sent (replicas: the shared state; afterSigning.ts). */
  announcer?: Announcer
}) {
  const { client, account, chainId, life, fees, logger } = options
  const { journal } = life
  const queue: Queued[] = []
  let running = false
  let next: number | undefined
  // Off for good once the node refuses a batch as a whole.
  let batching = options.broadcastClient !== undefined

  async function nonceBase(): Promise<number> {
    if (next === undefined) {
      const chain = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
      next = Math.max(chain, journal.nextNonce() ?? 0)
    }
    return next
  }

  /**
   * Signs a batch at consecutive nonces from `base` (the next free nonce when not given)
   * and writes it to the journal, durably. Undefined when it could not (its orders are
   * answered): nothing of it is kept or sent.
   */
  async function prepare(queued: Queued[], base?: number): Promise<Prepared | undefined> {
    let quote: FeeQuote
    let minedAt: bigint | undefined
    try {
      quote = await fees.current()
      base ??= await nonceBase()
      if (options.minedAt && queued.some((item) => item.request.validBefore !== undefined)) minedAt = await options.minedAt()
    } catch (error) {
      next = undefined
      for (const item of queued) {
        item.reject(new RelayError('UPSTREAM_RPC', "the relayer's RPC failed before broadcast (reading gas price or nonce); retry or try another relayer", { cause: error }))
      }
      return undefined
    }
    const fee = { maxFeePerGas: quote.maxFeePerGas, maxPriorityFeePerGas: quote.maxPriorityFeePerGas }
    // Every order judged at the fees its tx carries: one that does not pay for itself at them is answered, never signed.
    const batch: Queued[] = []
    const verdicts: Array<Verdict | undefined> = []
    let held = 0n
    for (const item of queued) {
      // An authorization that closed while the order waited (a slow RPC, a long queue) would be a paid revert.
      const { validBefore } = item.request
      if (validBefore !== undefined && minedAt !== undefined && validBefore <= minedAt + authorizationSafetyMarginSeconds) {
        item.reject(
          new RelayError('AUTH_EXPIRED', `authorization window passed before its transaction could be signed (validBefore ${validBefore}, chain time about ${minedAt}); nothing was sent; re-sign with a fresh window`),
        )
        continue
      }
      const verdict = item.request.terms && options.judge ? options.judge(item.request.terms, quote, held) : undefined
      if (verdict instanceof RelayError) {
        item.reject(verdict)
        continue
      }
      if (verdict) held += verdict.worstWei
      batch.push(item)
      verdicts.push(verdict)
    }
    if (batch.length === 0) return undefined
    const first = base
    let entries: Entry[]
    try {
      const raws = await options.signer.signAll(
        batch.map((item, i) => ({ type: 'eip1559' as const, chainId, nonce: first + i, to: item.request.to, data: item.request.data, gas: item.request.gas, ...fee })),
      )
      entries = batch.map((item, i) => ({ item, nonce: first + i, raw: raws[i]!, hash: keccak256(raws[i]!) }))
    } catch (error) {
      // Signing itself failed (nothing was written or sent): answer, never hang.
      next = undefined
      for (const item of batch) item.reject(error)
      return undefined
    }
    const requests = batch.map((item) => item.request)
    const late = await refusedAfterSigning(requests, options)
    if (late?.rpcFailed) next = undefined
    const refused = late?.refused ?? (options.announcer && (await refusedAtAnnounce(requests, entries, options.announcer)))
    if (refused) {
      // Nothing of this batch was written or sent: its signed txs are dropped, and the rest is signed again at the same nonces.
      for (const [i, error] of refused) batch[i]!.reject(error)
      const open = batch.filter((_, i) => !refused.has(i))
      return open.length > 0 ? prepare(open, first) : undefined
    }
    // When the txs are signed (a slow signer may take seconds): the nonce keeper's wait before a replacement counts from here.
    const signedAt = Date.now()
    const slots: NewSlot[] = entries.map(({ item, nonce, raw, hash }, i) => ({
      nonce,
      orderHash: (item.request.orderHash?.toLowerCase() as Hex | undefined) ?? null,
      consumer: item.request.consumer ?? null,
      adapter: item.request.adapter ?? null,
      payToken: item.request.payToken ?? null,
      feeAmount: verdicts[i]?.feeAmount ?? null,
      feeValueWei: verdicts[i]?.feeValueWei ?? null,
      tx: { hash, nonce, raw, kind: 'order', signedAt },
    }))
    try {
      await life.recorded(slots)
    } catch (error) {
      // Committed but not known to be on disk is not written either: nothing of it is sent, or kept.
      logger.error(`could not write the journal (${(error as Error).message}); nothing was broadcast`)
      // What was announced of it is never broadcast: taken back.
      options.announcer?.notSent(orderTxs(requests, entries).txs)
      for (const item of batch) item.reject(new RelayError('UPSTREAM_RPC', 'the relayer could not write its journal; nothing was broadcast; retry or try another relayer', { cause: error }))
      return undefined
    }
    return { base: first, entries }
  }

  /** Broadcasts a prepared batch and settles what the node said of each tx. */
  async function broadcast({ base, entries }: Prepared): Promise<void> {
    next = base + entries.length
    try {
      await settle(entries, await broadcastAll(entries))
    } finally {
      // Whatever the node may hold is the nonce keeper's from here, even after a failure settle did not foresee.
      const still = entries.map((entry) => entry.nonce).filter(life.held)
      if (still.length > 0) life.unanswered(still)
    }
    options.onBroadcast()
  }

  /**
   * Every tx of the batch to the node: as one JSON-RPC batch when the broadcast client
   * batches, else one request after another, stopping at the first the node did not
   * take (the rest are `held` after a lost answer, `unsent` after a refusal).
   */
  async function broadcastAll(entries: readonly Entry[]): Promise<Result[]> {
    if (batching && entries.length > 1) {
      const outcomes = await sendRawBatch(options.broadcastClient!, entries)
      if (outcomes) return outcomes
      batching = false
      logger.warn(`the RPC refused a JSON-RPC batch of ${entries.length} eth_sendRawTransaction calls; the relayer sends one transaction per request from now on`)
    }
    const results: Result[] = []
    for (const entry of entries) {
      const outcome = results.length === 0 || results.at(-1)!.kind === 'accepted' ? await sendRaw(client, entry.raw, entry.hash) : undefined
      const before = results.at(-1)?.kind
      results.push(outcome ?? { kind: before === 'unanswered' || before === 'held' ? 'held' : 'unsent' })
    }
    return results
  }

  /**
   * What each tx's answer means for its slot and its order, in nonce order:
   * - accepted: the order waits for its receipt;
   * - no answer (or held back after one): kept as signed, the nonce keeper sends it
   *   again once the node answers;
   * - refused (or unsent after a refusal) with no later tx of the batch in a pool: the
   *   slot is dropped, its nonce is free, the order is signed again or answered by kind;
   * - refused below a tx that may be pooled: that tx would wait behind the gap, so the
   *   nonce is filled with a 0-value self-transfer (or was taken by a foreign tx) and
   *   the order is answered by kind.
   */
  async function settle(entries: readonly Entry[], results: readonly Result[]) {
    let tail = entries.length
    while (tail > 0 && (results[tail - 1]!.kind === 'unsent' || isRefusal(results[tail - 1]!))) tail--
    const freed = entries.slice(tail)
    if (freed.length > 0) {
      life.dropped(freed.map((each) => each.nonce))
      next = freed[0]!.nonce
    }
    const retry: Queued[] = []
    const logged = new Set<string>()
    let unanswered = 0
    for (const [i, entry] of entries.entries()) {
      const result = results[i]!
      const { item, nonce, hash } = entry
      if (result.kind === 'accepted') {
        life.sent([nonce])
        item.resolve({ nonce, hash })
      } else if (result.kind === 'unanswered' || result.kind === 'held') {
        if (unanswered++ === 0) logger.warn(`tx ${hash} (nonce ${nonce}) got no answer from the node and is not known to it; kept in the journal and sent again as signed once the node answers`)
        life.unanswered([nonce]) // the nonce keeper looks at it in its next round
        item.resolve({ nonce, hash, unanswered: true })
      } else if (!isRefusal(result)) retry.push(item) // unsent
      else {
        const gap = i < tail
        // A foreign tx holds this nonce: nothing to fill, the slot goes.
        if (gap && result.kind === 'nonceTaken') life.dropped([nonce])
        const again = await refused(entry, result, { gap, firstOfKind: !logged.has(result.kind) })
        logged.add(result.kind)
        if (again) retry.push(again)
        else if (gap && result.kind !== 'nonceTaken') {
          const why = result.kind === 'noFunds' ? 'the gas key cannot pay' : nodeSays(result.error)
          await filler(nonce, why)
          // Its filler went out, or the nonce keeper sends one: the slot is the keeper's to see through.
          life.sent([nonce])
        }
      }
    }
    if (unanswered > 1) logger.warn(`${unanswered} txs of one batch got no answer from the node; kept in the journal and sent again as signed once the node answers`)
    queue.unshift(...retry)
  }

  /** Answers a refused tx's order by the kind of refusal, or returns it to be signed again at a free nonce. */
  async function refused(entry: Entry, result: Refusal, { gap, firstOfKind }: { gap: boolean; firstOfKind: boolean }): Promise<Queued | undefined> {
    const { item, nonce, hash } = entry
    if (result.kind === 'nonceTaken') {
      // Another process signs with this key. Signing the order again at another nonce could send it twice
      // (the other process may hold it too, and the loser's revert is paid): it is answered, not signed again.
      next = undefined
      options.keyGuard?.report(`the node refused nonce ${nonce} as used by a transaction this relayer did not send`)
      item.reject(
        new RelayError(
          'INSUFFICIENT_RELAYER_GAS',
          `not broadcast: nonce ${nonce} of this relayer's key is used by another process signing with the same key; this relayer takes no orders meanwhile; try another relayer`,
        ),
      )
    } else if (result.kind === 'underpriced' && item.attempt === 0 && !gap) {
      // The base fee moved past the cached price (refreshed every few seconds): read it now.
      if (firstOfKind) {
        logger.warn('the gas price rose past the cached one; re-read it and signed again')
        await fees.fresh().catch(() => undefined)
      }
      return { ...item, attempt: 1 }
    } else if (result.kind === 'noFunds') {
      item.reject(new RelayError('INSUFFICIENT_RELAYER_GAS', 'relayer gas account cannot pay for gas; try another relayer or run your own', { cause: result.error }))
    } else {
      logger.warn(`the node refused tx ${hash} (nonce ${nonce}): ${nodeSays(result.error)}`)
      item.reject(new RelayError('UPSTREAM_RPC', `the relayer's RPC refused the transaction (tx ${hash} was not accepted); retry or try another relayer`, { cause: result.error }))
    }
    return undefined
  }

  async function filler(nonce: number, why: string) {
    try {
      await options.fillGap(nonce, why)
    } catch (error) {
      // The slot stays pending: the nonce keeper's rounds find its tx unknown to the node and deal with it.
      logger.warn(`could not fill nonce ${nonce} yet (${errorLine(error)}); the nonce keeper tries again`)
    }
  }

  /**
   * Runs the queue: while one batch is at the node, the next is signed and journaled at
   * the nonces after it (the round trip and the signatures overlap). It is broadcast only
   * if the batch before left the next nonce where it expected; otherwise (a refusal freed
   * nonces, or the key's nonce must be read again) its slots are dropped unsent and its
   * orders go back to the front of the queue.
   */
  async function drain() {
    if (running) return
    running = true
    try {
      let prepared: Prepared | undefined
      while (prepared || queue.length > 0) {
        const current = prepared ?? (await prepare(queue.splice(0, txsPerBatch)))
        prepared = undefined
        if (!current) continue
        const sending = broadcast(current)
        const after = queue.length > 0 ? prepare(queue.splice(0, txsPerBatch), current.base + current.entries.length) : undefined
        await sending
        prepared = await after
        if (prepared && next !== prepared.base) {
          life.dropped(prepared.entries.map((entry) => entry.nonce))
          queue.unshift(...prepared.entries.map((entry) => entry.item))
          prepared = undefined
        }
      }
    } finally {
      running = false
    }
  }

  return {
    /** Queues a call; resolves once its signed tx is in the journal and the node has it. */
    send(request: SendRequest): Promise<Sent> {
      return new Promise<Sent>((resolve, reject) => {
        queue.push({ request, attempt: 0, resolve, reject })
        // Let the requests of this tick join the batch.
        if (!running) setImmediate(() => void drain())
      })
    },
    /** Forget the local nonce so the next batch asks the chain. */
    resync() {
      next = undefined
    },
    get queued() {
      return queue.length
    },
  }
}
