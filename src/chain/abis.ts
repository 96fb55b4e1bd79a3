import type { Abi } from 'viem'
import {
  allocationAdapterAbi,
  attestedAdapterAbi,
  brokerAbi,
  expressLaneAdapterAbi,
  lienEscrowAbi,
  lienInboxAbi,
  lienPoolAbi,
  lienRegistryAbi,
  mockEIP3009TokenAbi,
} from './generated/artifacts.ts'

/**
 * Every ABI a `broker()` call can revert through, for decoding reverts by selector:
 * the project's own, then those learned at run time (`learnErrorAbi`). A binding that
 * is replaced, never changed in place, so a cache keyed on the array stays right.
 */
export let errorAbis: readonly Abi[] = [
  brokerAbi,
  allocationAdapterAbi,
  expressLaneAdapterAbi,
  attestedAdapterAbi,
  mockEIP3009TokenAbi,
]

/** The contract each of `errorAbis` belongs to: a decoded revert's `contract` (the first ABI that declares its error). */
const contractNames = new WeakMap<Abi, string>([
  [brokerAbi, 'Broker'],
  [allocationAdapterAbi, 'AllocationAdapter'],
  [expressLaneAdapterAbi, 'ExpressLaneAdapter'],
  [attestedAdapterAbi, 'AttestedAdapter'],
  [mockEIP3009TokenAbi, 'MockEIP3009Token'],
])

/** The contract name an ABI of `errorAbis` was given, if any. */
export const contractNameOf = (abi: Abi): string | undefined => contractNames.get(abi)

/**
 * Adds the errors of an ABI the project does not ship (a contract developer's own
 * adapter, named in a devnet manifest) to those reverts are decoded against, so its
 * custom errors read with their arguments by name, under `contract` (the manifest's
 * name for it). The project's own errors keep their meaning: a selector already known
 * is not taken over.
 *
 * @example
 * learnErrorAbi(myAdapterAbi, 'QuotaAdapter')
 * decodeRevert(data, errorAbis).text // 'SoldOut(sold=2, max=2)'
 */
export function learnErrorAbi(abi: Abi, contract?: string): void {
  if (contract !== undefined && !contractNames.has(abi)) contractNames.set(abi, contract)
  if (!errorAbis.includes(abi)) errorAbis = [...errorAbis, abi]
}

/** The adapters' ABIs by the kind name the relayer reports in `receipt.adapter`. */
export const adapterEventAbis = {
  allocation: allocationAdapterAbi,
  expressLane: expressLaneAdapterAbi,
  attested: attestedAdapterAbi,
} as const satisfies Record<string, Abi>

/** The four registry contracts, in the order the snapshot lists them. */
export const registryAbis = [lienRegistryAbi, lienInboxAbi, lienPoolAbi, lienEscrowAbi] as const

/** The Broker's `Brokered` event item. */
export const brokeredEvent = brokerAbi.find(
  (item): item is Extract<(typeof brokerAbi)[number], { type: 'event'; name: 'Brokered' }> =>
    item.type === 'event' && item.name === 'Brokered',
)!
