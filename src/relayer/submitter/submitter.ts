import {
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  formatTransactionReceipt,
  type RpcTransactionReceipt,
} from 'viem'
import type { Logger } from '../../shared/index.ts'
import { keccak256 } from '../../wire/index.ts'
import { RelayError } from '../errors.ts'
import { createFeeCache } from './feeCache.ts'
import { createLocalNonceManager } from './nonceSource.ts'
import { errorText } from './errorText.ts'
import { createReviver, underpriced } from './revive.ts'
import { createSerialQueue } from './serialQueue.ts'

export type SubmitterOptions = {
  client: PublicClient
  account: LocalAccount
  chainId: number
  logger: Logger
  receiptTimeoutMs: number
  receiptPollMs: number
  feeRefreshMs?: number
  /** How long a receipt may be missing before the node is asked whether it still has the tx (default 8 polls, at least 1 s). */
  reviveAfterMs?: number
}

export type Submitter = ReturnType<typeof createSubmitter>

const nonceDrift = /nonce too low|already known|replacement transaction underpriced|nonce too high|invalid nonce/i
const noFunds = /insufficient funds|insufficient balance/i

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Sends transactions from the one gas key: nonces handed out locally (viem's nonce
 * manager over a local source), signed locally, broadcast one after another in nonce
 * order, and re-synced from the chain after any failed broadcast so one failure never
 * wedges the orders behind it.
 */
export function createSubmitter(options: SubmitterOptions) {
  const { client, account, chainId, logger } = options
  const nonces = createLocalNonceManager()
  const queue = createSerialQueue()
  const fees = createFeeCache(client, { refreshMs: options.feeRefreshMs ?? 5_000, logger })
  const nonceKey = { address: account.address, chainId }
  const reviver = createReviver({ client, account, chainId, logger, freshFees: fees.fresh })
  const reviveAfterMs = options.reviveAfterMs ?? Math.max(1_000, options.receiptPollMs * 8)

  async function signAndSend(tx: { to: Address; data: Hex; gas: bigint }, attempt: number): Promise<Hex> {
    let fee: Awaited<ReturnType<typeof fees.current>>
    let nonce: number
    try {
      fee = await fees.current()
      nonce = await nonces.consume({ ...nonceKey, client })
    } catch (error) {
      // Nothing was sent: the fee or nonce read failed (only when no cached value exists).
      nonces.reset(nonceKey)
      throw new RelayError('UPSTREAM_RPC', "the relayer's RPC failed before broadcast (reading gas price or nonce); retry or try another relayer", { cause: error })
    }
    const { maxFeePerGas, maxPriorityFeePerGas } = fee
    const serialized = await account.signTransaction({
      type: 'eip1559',
      chainId,
      nonce,
      to: tx.to,
      data: tx.data,
      gas: tx.gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })
    const hash = keccak256(serialized)
    try {
      await client.request({ method: 'eth_sendRawTransaction', params: [serialized] })
      reviver.remember(hash, { ...tx, nonce, fees: { maxFeePerGas, maxPriorityFeePerGas }, serialized })
      return hash
    } catch (error) {
      nonces.reset(nonceKey)
      const text = errorText(error)
      if (noFunds.test(text)) {
        throw new RelayError('INSUFFICIENT_RELAYER_GAS', 'relayer gas account cannot pay for gas; try another relayer or run your own', { cause: error })
      }
      if (nonceDrift.test(text) && attempt === 0) {
        logger.warn('nonce out of sync with the chain; re-synced and retrying the broadcast')
        return signAndSend(tx, 1)
      }
      if (underpriced.test(text) && attempt === 0) {
        // The base fee moved past the cached price (refreshed every few seconds): read it now.
        logger.warn('the gas price rose past the cached one; re-read it and signed again')
        await fees.fresh().catch(() => undefined)
        return signAndSend(tx, 1)
      }
      throw new RelayError('UPSTREAM_RPC', `broadcast failed at the relayer's RPC (tx ${hash} may or may not have reached the node); retry or try another relayer`, {
        cause: error,
        txHash: hash,
      })
    }
  }

  return {
    address: account.address,
    start() {
      fees.start()
    },
    stop() {
      fees.stop()
    },
    /** The fee fields the next transaction will carry (cached, refreshed in the background): the simulation uses them. */
    currentFees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
      return fees.current()
    },
    /** Signs and broadcasts in nonce order; resolves with the txHash once the node accepted it. */
    send(tx: { to: Address; data: Hex; gas: bigint }): Promise<Hex> {
      return queue.run(() => signAndSend(tx, 0))
    },
    /**
     * Polls for the receipt: at once, then after delays that start at an eighth of
     * `receiptPollMs` and double up to it (a fixed 250 ms sleep after the first miss
     * made every order wait a quarter second on a chain that mines in milliseconds,
     * and capped 32 clients at ~125 orders/s). Every `reviveAfterMs` without a receipt
     * the node is asked whether it still has the tx; one it lost is sent again (see
     * revive.ts), so neither this order nor the nonces behind it are stranded. A
     * missing receipt after the timeout is UPSTREAM_RPC naming the txHash.
     */
    async waitForReceipt(hash: Hex): Promise<TransactionReceipt> {
      const deadline = Date.now() + options.receiptTimeoutMs
      let delay = Math.max(1, Math.ceil(options.receiptPollMs / 8))
      let failures = 0
      let waitingFor = hash
      let reviveAt = Date.now() + reviveAfterMs
      for (;;) {
        try {
          const raw = (await client.request({ method: 'eth_getTransactionReceipt', params: [waitingFor] })) as RpcTransactionReceipt | null
          if (raw) {
            reviver.forget(hash)
            reviver.forget(waitingFor)
            return formatTransactionReceipt(raw)
          }
          failures = 0
        } catch (error) {
          // Ride out short RPC hiccups; give up only at the deadline.
          failures++
          if (failures === 1) logger.warn(`receipt poll failed for ${waitingFor}; retrying`)
          if (Date.now() > deadline) {
            throw new RelayError('UPSTREAM_RPC', `broadcast as tx ${waitingFor} but the relayer's RPC failed while waiting for the receipt; check the tx before retrying`, {
              cause: error,
              txHash: waitingFor,
            })
          }
        }
        if (Date.now() > deadline) {
          throw new RelayError('UPSTREAM_RPC', `broadcast as tx ${waitingFor} but no receipt within ${options.receiptTimeoutMs} ms; check the tx before retrying`, {
            txHash: waitingFor,
          })
        }
        if (Date.now() >= reviveAt) {
          waitingFor = (await reviver.revive(waitingFor)) ?? waitingFor
          reviveAt = Date.now() + reviveAfterMs
        }
        await sleep(delay)
        delay = Math.min(delay * 2, options.receiptPollMs)
      }
    },
    /**
     * A tx this relayer sent earlier whose receipt never came: sent again if the node
     * lost it. The hash to wait for, or undefined when it cannot be revived.
     */
    revive(hash: Hex): Promise<Hex | undefined> {
      return reviver.revive(hash)
    },
    /** Forget the local nonce so the next send asks the chain. */
    resync() {
      nonces.reset(nonceKey)
    },
    get queued() {
      return queue.pending
    },
  }
}
