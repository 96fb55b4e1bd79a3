import type { Address, Hex } from 'viem'

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
 * The fields of `0x02 || rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas,
 * to, value, data, …])` read straight from its hex: the inverse of `serializeEip1559` for
 * the fields the journal keeps only inside the signed tx (see openJournal.ts). viem's
 * `parseTransaction` takes ~30 µs a tx (it checks and converts every field); this reads
 * eight headers. Throws on hex that is not such a transaction.
 */
export function parseEip1559(raw: Hex): Eip1559Fields {
  if (raw.slice(0, 4) !== '0x02') throw notEip1559('it does not start with the type byte 0x02')
  const reader = { raw, at: 4 }
  const list = header(reader)
  if (!list.list || reader.at + list.length * 2 !== raw.length) throw notEip1559('its list does not span the rest of it')
  item(reader) // chainId
  const nonce = integer(item(reader))
  const maxPriorityFeePerGas = integer(item(reader))
  const maxFeePerGas = integer(item(reader))
  const gas = integer(item(reader))
  const to = item(reader)
  if (to.length !== 40) throw notEip1559('its `to` is not an address')
  item(reader) // value
  const data = item(reader)
  if (nonce > BigInt(Number.MAX_SAFE_INTEGER)) throw notEip1559('its nonce is too large')
  return { nonce: Number(nonce), maxPriorityFeePerGas, maxFeePerGas, gas, to: `0x${to}` as Address, data: `0x${data}` as Hex }
}

type Reader = { raw: string; at: number }

const byteAt = (reader: Reader, at: number): number => {
  const value = Number.parseInt(reader.raw.slice(at, at + 2), 16)
  if (!(value >= 0)) throw notEip1559('it is not hex')
  return value
}

/** An RLP header at the reader: a list or a string, and its payload's length in bytes. A single byte under 0x80 is its own payload. */
function header(reader: Reader): { list: boolean; length: number } {
  const first = byteAt(reader, reader.at)
  if (first < 0x80) return { list: false, length: 1 }
  reader.at += 2
  const list = first >= 0xc0
  const short = first - (list ? 0xc0 : 0x80)
  if (short < 56) return { list, length: short }
  const size = short - 55
  let length = 0
  for (let i = 0; i < size; i++, reader.at += 2) length = length * 256 + byteAt(reader, reader.at)
  return { list, length }
}

/** The next string item's payload as hex without `0x`, the reader moved past it. */
function item(reader: Reader): string {
  const { list, length } = header(reader)
  if (list) throw notEip1559('a field is a list')
  const end = reader.at + length * 2
  if (end > reader.raw.length) throw notEip1559('a field runs past its end')
  const payload = reader.raw.slice(reader.at, end)
  reader.at = end
  return payload
}

const integer = (hex: string): bigint => (hex === '' ? 0n : BigInt(`0x${hex}`))

const notEip1559 = (why: string) => new Error(`parseEip1559: not a signed EIP-1559 transaction: ${why}`)
