import * as v from 'valibot'
import { edgeErrorCodeList, relayErrorCodeList } from './codes.ts'
import { OrderSchema } from './order.ts'
import { AddressSchema, Bytes32Schema, HexSchema, integerIn, Uint256StringSchema } from './primitives.ts'

/** The consumer's EIP-3009 signature, split. */
export const SignatureSchema = v.strictObject(
  {
    v: integerIn(0, 255, 'v is a uint8'),
    r: Bytes32Schema,
    s: Bytes32Schema,
  }
)

/** Body of `POST /broker` (SPEC.md 2.4). */
export const RelayRequestSchema = v.strictObject(
  {
    order: OrderSchema,
    signature: SignatureSchema,
    validAfter: Uint256StringSchema,
    validBefore: Uint256StringSchema,
    chainId: integerIn(1, Number.MAX_SAFE_INTEGER, 'chainId'),
    orderHash: v.optional(Bytes32Schema),
  }
)

export type RelayRequest = v.InferOutput<typeof RelayRequestSchema>
export type Signature = v.InferOutput<typeof SignatureSchema>

/** The `Brokered` event's consumer-facing fields. */
export const BrokeredSchema = v.object({
  consumer: AddressSchema,
  adapter: AddressSchema,
  amount: Uint256StringSchema,
  orderHash: Bytes32Schema,
})

/** The adapter's own event, decoded: which adapter, which event, its named fields as strings. */
export const AdapterReceiptSchema = v.object({
  adapter: v.pipe(v.string(), v.description("Adapter kind: allocation, expressLane, attested, the name of one of the manifest's own adapters (adapters), or unknown.")),
  event: v.pipe(v.string(), v.description('Name of the event the adapter emitted, e.g. AllocationGranted.')),
  fields: v.pipe(
    v.record(v.string(), v.string()),
    v.description('The event arguments by name: integers as decimal strings, addresses and bytes as hex.'),
  ),
})

/** 200 answer of `POST /broker` (SPEC.md 2.5). */
export const RelaySuccessSchema = v.object({
  ok: v.literal(true),
  txHash: Bytes32Schema,
  orderHash: Bytes32Schema,
  brokered: BrokeredSchema,
  receipt: AdapterReceiptSchema,
  feeCollected: Uint256StringSchema,
})

export type RelaySuccess = v.InferOutput<typeof RelaySuccessSchema>
export type AdapterReceipt = v.InferOutput<typeof AdapterReceiptSchema>

/** Error answer of `POST /broker` (SPEC.md 2.6); never carries the order, signature or a key. */
export const RelayFailureSchema = v.object({
  ok: v.literal(false),
  code: v.picklist(relayErrorCodeList),
  message: v.string(),
})

export type RelayFailure = v.InferOutput<typeof RelayFailureSchema>

/** Rejection by the hardened edge (SPEC.md 7.2). */
export const EdgeRejectionSchema = v.object({
  ok: v.literal(false),
  code: v.picklist(edgeErrorCodeList),
  message: v.string(),
})

export type EdgeRejection = v.InferOutput<typeof EdgeRejectionSchema>

/** Answer of `GET /info` (SPEC.md 2.7). */
export const RelayerInfoSchema = v.object({
  feeFloorBps: integerIn(0, 65535, 'feeFloorBps'),
  supportedChainIds: v.array(integerIn(1, Number.MAX_SAFE_INTEGER, 'chainId')),
  relayer: AddressSchema,
})

export type RelayerInfo = v.InferOutput<typeof RelayerInfoSchema>

export { HexSchema }
