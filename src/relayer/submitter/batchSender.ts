import type { Address, Hex, LocalAccount, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { keccak256 } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'
import type { Journal, NewSlot } from '../journal/index.ts'
import type { createFeeCache } from './feeCache.ts'
import { errorText } from './errorText.ts'
import { sendRaw } from './sendRaw.ts'

/** A call to send from the gas key, and the order it settles (none for a filler). */
export type SendRequest = { to: Address; data: Hex; gas: bigint; orderHash?: Hex; consumer?: Address; adapter?: Address; payToken?: Address }
/** The nonce and hash of a tx the node accepted, or may have (`unanswered`: see sendRaw.ts). */
export type Sent = { nonce: number; hash: Hex; unanswered?: boolean }

type Queued = { request: SendRequest; attempt: number; resolve: (sent: Sent) => void; reject: (error: unknown) => void }

/** Most txs signed and written in one journal commit. */
const batchSize = 64

/**
 * The serial send queue with group commit: whatever is queued when it runs is
 * signed at consecutive nonces, written to the journal in one durable commit, and
 * only then broadcast, one after another in nonce order. A tx the node refuses
 * outright never reached a pool: it and the rest of its batch (not yet sent) are
 * dropped from the journal and signed again at the freed nonces; nothing the node
 * may hold is ever signed again at another nonce.
 */
export function createBatchSender(options: {
  client: PublicClient
  account: LocalAccount
  chainId: number
  journal: Journal
  fees: ReturnType<typeof createFeeCache>
  logger: Logger
  /** Called after each batch went out (the receipt watcher looks at once). */
  onBroadcast: () => void
}) {
  const { client, account, chainId, journal, fees, logger } = options
  const queue: Queued[] = []
  let running = false
  let next: number | undefined

  async function nonceBase(): Promise<number> {
    if (next === undefined) {
      const chain = await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
      next = Math.max(chain, journal.nextNonce() ?? 0)
    }
    return next
  }

  async function runBatch(batch: Queued[]) {
    let fee: Awaited<ReturnType<typeof fees.current>>
    let base: number
    try {
      fee = await fees.current()
      base = await nonceBase()
    } catch (error) {
      next = undefined
      for (const item of batch) {
        item.reject(new RelayError('UPSTREAM_RPC', "the relayer's RPC failed before broadcast (reading gas price or nonce); retry or try another relayer", { cause: error }))
      }
      return
    }
    const now = Date.now()
    const signed = await Promise.all(
      batch.map(async (item, i) => {
        const nonce = base + i
        const raw = await account.signTransaction({ type: 'eip1559', chainId, nonce, to: item.request.to, data: item.request.data, gas: item.request.gas, ...fee })
        return { item, nonce, raw, hash: keccak256(raw) }
      }),
    )
    const slots: NewSlot[] = signed.map(({ item, nonce, raw, hash }) => ({
      nonce,
      orderHash: (item.request.orderHash?.toLowerCase() as Hex | undefined) ?? null,
      consumer: item.request.consumer ?? null,
      adapter: item.request.adapter ?? null,
      payToken: item.request.payToken ?? null,
      to: item.request.to,
      data: item.request.data,
      gas: item.request.gas,
      tx: { hash, nonce, raw, ...fee, kind: 'order', signedAt: now },
    }))
    try {
      await journal.record(slots)
    } catch (error) {
      // Committed but not known to be on disk is not written either: nothing of it is sent, or kept.
      try {
        journal.reject(slots.map((slot) => slot.nonce))
      } catch {}
      logger.error(`could not write the journal (${(error as Error).message}); nothing was broadcast`)
      for (const item of batch) item.reject(new RelayError('UPSTREAM_RPC', 'the relayer could not write its journal; nothing was broadcast; retry or try another relayer', { cause: error }))
      return
    }
    next = base + batch.length
    for (const [i, { item, nonce, raw, hash }] of signed.entries()) {
      const outcome = await sendRaw(client, raw, hash)
      if (outcome.kind === 'accepted') {
        item.resolve({ nonce, hash })
        continue
      }
      if (outcome.kind === 'unanswered') {
        // The node cannot be reached: this tx may be pooled, the rest of the batch is
        // not sent now. All stay pending in the journal; the nonce keeper sends each
        // again as signed, in nonce order, once the node answers.
        const rest = signed.slice(i)
        logger.warn(`tx ${hash} (nonce ${nonce}) got no answer from the node and is not known to it; ${rest.length} tx${rest.length === 1 ? '' : 's'} kept in the journal and sent again as signed once the node answers`)
        for (const each of rest) {
          journal.resent(each.nonce, 0) // the nonce keeper looks at them in its next round
          each.item.resolve({ nonce: each.nonce, hash: each.hash, unanswered: true })
        }
        break
      }
      // Refused outright: this tx and the rest of the batch never reached a pool.
      const unsent = signed.slice(i)
      journal.reject(unsent.map((each) => each.nonce))
      next = nonce
      const retry = unsent.slice(1).map((each) => each.item)
      if (outcome.kind === 'nonceTaken') {
        logger.warn(`nonce ${nonce} of this relayer's key was already used by a transaction this relayer did not send (another process using the same key?); re-synced and signed again`)
        next = undefined
        if (item.attempt === 0) retry.unshift({ ...item, attempt: 1 })
        else item.reject(new RelayError('UPSTREAM_RPC', `not broadcast: nonce ${nonce} of the relayer's key is being used by another process that shares the key; retry or try another relayer`))
      } else if (outcome.kind === 'underpriced' && item.attempt === 0) {
        // The base fee moved past the cached price (refreshed every few seconds): read it now.
        logger.warn('the gas price rose past the cached one; re-read it and signed again')
        await fees.fresh().catch(() => undefined)
        retry.unshift({ ...item, attempt: 1 })
      } else if (outcome.kind === 'noFunds') {
        item.reject(new RelayError('INSUFFICIENT_RELAYER_GAS', 'relayer gas account cannot pay for gas; try another relayer or run your own', { cause: outcome.error }))
      } else {
        const reason = errorText(outcome.error).replace(/\s+/g, ' ').trim().slice(0, 200)
        logger.warn(`the node refused tx ${hash} (nonce ${nonce}): ${reason}`)
        item.reject(new RelayError('UPSTREAM_RPC', `the relayer's RPC refused the transaction (tx ${hash} was not accepted); retry or try another relayer`, { cause: outcome.error }))
      }
      queue.unshift(...retry)
      break
    }
    options.onBroadcast()
  }

  async function drain() {
    if (running) return
    running = true
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, batchSize)
        try {
          await runBatch(batch)
        } catch (error) {
          // Signing itself failed (nothing was written or sent): answer, never hang.
          next = undefined
          for (const item of batch) item.reject(error)
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
