import { type Abi, type AbiEvent, type Address, decodeEventLog, getAddress, type Hex, type Log } from 'viem'
import { compileStaticEvent, formatEventArgs, registryAbis, type StaticEventDecoder } from '../../chain/index.ts'
import type { ActivityEvent } from '../../wire/index.ts'

/** What decoding reads of a log (a viem `Log` has it all). */
export type DecodableLog = Pick<Log, 'address' | 'topics' | 'data' | 'blockNumber' | 'logIndex' | 'transactionHash'>

/**
 * Decodes logs of the four registry contracts into ActivityEvents, generically:
 * whatever event of the emitting contract's ABI matches, `fields` its named
 * arguments (integers as decimal strings, addresses and bytes as hex).
 *
 * @example
 * const decode = createLogDecoder(config.addresses)
 * const event = decode(log) // { name: 'LienRecorded', fields: { lienId, borrower, expiresAt }, … }
 */
export function createLogDecoder(addresses: readonly [Address, Address, Address, Address]) {
  const byAddress = new Map<string, { address: Address; abi: Abi; fast: Map<string, StaticEventDecoder> }>()
  addresses.forEach((address, index) => {
    const abi = registryAbis[index] as Abi
    // The contract's own events with static arguments, by selector: decoded without viem's generic path.
    const fast = new Map<string, StaticEventDecoder>()
    for (const item of abi) {
      const compiled = item.type === 'event' ? compileStaticEvent(item as AbiEvent) : undefined
      if (compiled && !fast.has(compiled.selector)) fast.set(compiled.selector, compiled.decoder)
    }
    byAddress.set(address.toLowerCase(), { address: getAddress(address), abi, fast })
  })
  const all = registryAbis.flat() as Abi

  return function decodeLog(log: DecodableLog): ActivityEvent | undefined {
    if (log.blockNumber === null || log.logIndex === null || log.transactionHash === null) return undefined
    const known = byAddress.get(log.address.toLowerCase())
    const address = known?.address ?? getAddress(log.address)
    const blockNumber = log.blockNumber.toString()
    const quick = log.topics[0] === undefined ? undefined : known?.fast.get(log.topics[0])
    const fields = quick?.decode(log.topics as Hex[], log.data)
    // Written out rather than spread from `base` (a backfill decodes thousands); same key order.
    if (quick && fields) return { name: quick.name, address, blockNumber, logIndex: log.logIndex, transactionHash: log.transactionHash, fields }
    const base = { address, blockNumber, logIndex: log.logIndex, transactionHash: log.transactionHash }
    const decoded = tryDecode(known?.abi ?? all, log) ?? tryDecode(all, log)
    if (decoded) return { name: decoded.eventName, ...base, fields: formatEventArgs(decoded.args) }
    // Not in the ABIs (a contract upgraded under us?): keep it visible rather than lose it.
    return { name: 'UnknownEvent', ...base, fields: { topics: log.topics.join(','), data: log.data } }
  }
}

function tryDecode(abi: Abi, log: DecodableLog) {
  try {
    const decoded = decodeEventLog({ abi, data: log.data, topics: log.topics, strict: true })
    return decoded.eventName === undefined ? undefined : { eventName: decoded.eventName, args: decoded.args }
  } catch {
    return undefined
  }
}

/** Chain order: block number, then log index. */
export function compareEvents(a: ActivityEvent, b: ActivityEvent): number {
  return compareBlocks(a.blockNumber, b.blockNumber) || a.logIndex - b.logIndex
}

/** Two canonical decimal block numbers compared without parsing: the longer is larger, else by text. */
export function compareBlocks(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}
