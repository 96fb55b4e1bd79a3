import { type Address, type Hex, parseTransaction } from 'viem'
import { errorLine } from '../../shared/index.ts'

/** The fields of a signed EIP-1559 transaction the relayer reads back: what it pays and what it calls. */
export type Eip1559Fields = {
  nonce: number
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  gas: bigint
  to: Address
  data: Hex
}

/**
 * The fields read lately, by signed tx: the journal reads each pending slot's tx again
 * at every look at a new block (about five reads an order under load), and viem's parse
 * costs ~10 µs of the main thread each time. Oldest out first past `recentKept`.
 */
const recent = new Map<string, Readonly<Eip1559Fields>>()
const recentKept = 1_024

/**
 * The fields the journal keeps only inside a signed tx (see openJournal.ts), read by
 * viem's `parseTransaction`, with the ones an RLP encoding leaves out when zero or empty
 * filled in (the same tx read again comes from `recent`). Throws, naming what is wrong,
 * on hex that is not a signed EIP-1559 transaction calling a contract.
 *
 * @example
 * const { nonce, to, data, gas } = parseEip1559(raw)
 */
export function parseEip1559(raw: Hex): Readonly<Eip1559Fields> {
  const known = recent.get(raw)
  if (known) return known
  const fields = Object.freeze(parse(raw))
  if (recent.size >= recentKept) recent.delete(recent.keys().next().value!)
  recent.set(raw, fields)
  return fields
}

function parse(raw: Hex): Eip1559Fields {
  if (!raw.startsWith('0x02')) throw notEip1559('it does not start with the type byte 0x02')
  let tx: ReturnType<typeof parseTransaction<Hex>>
  try {
    tx = parseTransaction(raw)
  } catch (error) {
    throw notEip1559(errorLine(error))
  }
  if (tx.type !== 'eip1559') throw notEip1559(`it is a ${tx.type} transaction`)
  if (!tx.to) throw notEip1559('it has no `to` (a contract creation)')
  if (tx.r === undefined || tx.s === undefined) throw notEip1559('it is not signed')
  return {
    nonce: tx.nonce ?? 0,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n,
    maxFeePerGas: tx.maxFeePerGas ?? 0n,
    gas: tx.gas ?? 0n,
    to: tx.to,
    data: tx.data ?? '0x',
  }
}

const notEip1559 = (why: string) => new Error(`parseEip1559: not a signed EIP-1559 transaction: ${why}`)
