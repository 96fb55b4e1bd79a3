import { type Hex, serializeTransaction, type TransactionSerializableEIP1559 } from 'viem'
import type { TxSigner } from '../relayer/submitter/txSignerType.ts'

/**
 * The simulator's gas key: the tx's bytes with a stand-in signature (r a hash of the
 * tx's fields, s the key's place among the node's keys, from 1), so each payload has its
 * own hash, as a real signature gives it, at a fraction of secp256k1's cost. The simulated
 * node takes the tx as sent by the key `s` names.
 * `onSigned` hears of each tx as it is signed (the world asks the node whether it
 * would revert then); `delayMs` says how long a call takes (a slow remote signer or KMS).
 */
export function createSimSigner(onSigned: (raw: Hex) => void = () => {}, keyIndex = 0, delayMs: () => number = () => 0): TxSigner {
  const s = `0x${(keyIndex + 1).toString(16)}` as Hex
  const sign = (tx: TransactionSerializableEIP1559): Hex => {
    // r: a 64-bit hash of the fields signed (Bun.hash), so each payload has its own signature, as with a real key.
    const fields = `${tx.chainId}:${tx.nonce}:${tx.to}:${tx.data}:${tx.gas}:${tx.value ?? 0n}:${tx.maxFeePerGas}:${tx.maxPriorityFeePerGas}`
    const r = `0x${Bun.hash(fields).toString(16).padStart(64, '0')}` as Hex
    const raw = serializeTransaction(tx, { r, s, yParity: 0 })
    onSigned(raw)
    return raw
  }
  return {
    async signAll(txs) {
      const wait = delayMs()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      return txs.map(sign)
    },
    start() {},
    where: 'main',
    stop() {},
  }
}
