import type { Address, Hex, LocalAccount, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import { keccak256 } from '../../wire/index.ts'
import { errorText } from './errorText.ts'
import type { Fees } from './feeCache.ts'

/** A transaction the submitter signed and the node accepted, kept until its receipt is seen. */
export type SentTransaction = { to: Address; data: Hex; gas: bigint; nonce: number; fees: Fees; serialized: Hex }

const mostRemembered = 10_000
export const underpriced = /underpriced|less than (the )?block base fee|lower than the block base fee|fee cap .*(too low|less than)|max fee per gas less than|fee too low/i
const nonceUsed = /nonce too low|nonce has already been used|invalid nonce/i
const alreadyKnown = /already known|already imported|known transaction/i

/** Bumped fees for a replacement: at least the fresh estimate and 12.5 % over the old (nodes require +10 %). */
function bumped(old: Fees, fresh: Fees): Fees {
  const up = (value: bigint) => value + (value + 7n) / 8n
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  return { maxFeePerGas: max(fresh.maxFeePerGas, up(old.maxFeePerGas)), maxPriorityFeePerGas: max(fresh.maxPriorityFeePerGas, up(old.maxPriorityFeePerGas)) }
}

/**
 * Keeps the gas key's sent transactions alive. A transaction the node accepted can
 * still vanish from its pool (a restarted node, an evicted or dropped transaction):
 * its own order then never settles, and every later nonce of the key waits behind
 * the gap forever; so can one that stays in the pool after the base fee rose above
 * its fee cap. `revive` notices a transaction the node no longer knows and sends it
 * again exactly as signed; if the node now refuses it as underpriced, or it sits in
 * the pool priced out, it signs the same nonce again at a higher fee (a
 * replacement, with a new hash).
 */
export function createReviver(options: { client: PublicClient; account: LocalAccount; chainId: number; logger: Logger; freshFees: () => Promise<Fees> }) {
  const { client, account, chainId, logger } = options
  const sent = new Map<Hex, SentTransaction>()

  async function send(serialized: Hex) {
    await client.request({ method: 'eth_sendRawTransaction', params: [serialized] })
  }

  /** Signs the same nonce, call and gas at a higher fee, and sends it; `why` goes into the warning. */
  async function replace(hash: Hex, tx: SentTransaction, why: string): Promise<Hex> {
    const fees = bumped(tx.fees, await options.freshFees())
    const serialized = await account.signTransaction({ type: 'eip1559', chainId, nonce: tx.nonce, to: tx.to, data: tx.data, gas: tx.gas, ...fees })
    await send(serialized)
    const replacement = keccak256(serialized)
    remember(replacement, { ...tx, fees, serialized })
    logger.warn(`tx ${hash} ${why}; replaced it by tx ${replacement} at a higher fee`)
    return replacement
  }

  /** A tx still in the pool is stuck for good when the base fee has risen above its fee cap. */
  async function pricedOut(tx: SentTransaction): Promise<boolean> {
    const { baseFeePerGas } = await client.getBlock({ blockTag: 'latest' })
    return baseFeePerGas !== null && baseFeePerGas > tx.fees.maxFeePerGas
  }

  function remember(hash: Hex, tx: SentTransaction) {
    if (sent.size >= mostRemembered) sent.delete(sent.keys().next().value!)
    sent.set(hash, tx)
  }

  return {
    remember,
    /** The receipt came (or the wait is over for good): nothing to keep alive. */
    forget(hash: Hex) {
      sent.delete(hash)
    },
    /**
     * The hash to keep waiting for: `hash` itself while the node knows it (or once it
     * was sent again), a replacement's hash after an underpriced refusal or when it
     * sits in the pool priced out by a risen base fee, undefined
     * when its nonce was used by another transaction (or it was never ours).
     * RPC failures are left for the next look.
     */
    async revive(hash: Hex): Promise<Hex | undefined> {
      const tx = sent.get(hash)
      if (!tx) return undefined
      let known: unknown
      try {
        known = await client.request({ method: 'eth_getTransactionByHash', params: [hash] })
      } catch {
        return hash
      }
      if (known) {
        // Still in the pool (not yet in a block): replaced only when priced out of every block.
        if ((known as { blockNumber?: unknown }).blockNumber !== null) return hash
        const stuck = await pricedOut(tx).catch(() => false)
        return stuck ? replace(hash, tx, 'is priced out of blocks (the base fee rose above its fee cap)').catch(() => hash) : hash
      }
      try {
        await send(tx.serialized)
        logger.warn(`tx ${hash} was no longer known to the node; sent it again as signed`)
        return hash
      } catch (error) {
        const text = errorText(error)
        if (alreadyKnown.test(text)) return hash
        if (nonceUsed.test(text)) return undefined
        if (underpriced.test(text)) return replace(hash, tx, 'was refused as underpriced when sent again').catch(() => hash)
        return hash
      }
    },
  }
}

export type Reviver = ReturnType<typeof createReviver>
