import type { Address, Hex } from 'viem'
import type { OrderTerms, Verdict } from '../economics/index.ts'
import type { RelayError } from '../errors.ts'
import type { FeeQuote } from './feeCache.ts'

/**
 * A call to send from the gas key, and the order it settles (none for a filler). `terms`:
 * what the order pays and takes, judged again at the fees its tx is signed with.
 */
export type SendRequest = {
  to: Address
  data: Hex
  gas: bigint
  orderHash?: Hex
  consumer?: Address
  adapter?: Address
  payToken?: Address
  terms?: OrderTerms
  /**
   * The unix second the order's authorization holds until (`validBefore`): before its batch
   * is signed, and again once it is (a slow signer), it must still hold the pipeline's
   * margin past the time a tx sent then is mined (`minedAt`), else it is answered
   * AUTH_EXPIRED and never sent.
   */
  validBefore?: bigint
}

/** Whether an order pays for itself at `fees`, given what the batch's earlier orders already hold (see economics/judgeOrder.ts). */
export type Judge = (terms: OrderTerms, fees: FeeQuote, alsoReservedWei: bigint) => Verdict | RelayError
/** The nonce and hash of a tx the node accepted, or may have (`unanswered`: see sendRaw.ts). */
export type Sent = { nonce: number; hash: Hex; unanswered?: boolean }
