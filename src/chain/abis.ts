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

/** Every ABI a `broker()` call can revert through, for decoding reverts by selector. */
export const errorAbis: readonly Abi[] = [
  brokerAbi,
  allocationAdapterAbi,
  expressLaneAdapterAbi,
  attestedAdapterAbi,
  mockEIP3009TokenAbi,
]

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
