import * as v from 'valibot'
import { AcceptedTokenSchema } from './economics.ts'
import { edgeErrorCodeList, relayErrorCodeList } from './codes.ts'
import { OrderSchema } from './order.ts'
import { GasSignerKindSchema } from './operations.ts'
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

/**
 * The revert a simulation met, decoded: what `message` says after "would revert: ", as
 * fields a program can match (a test asserts `revert.name` and `revert.args`, not text).
 */
export const RevertSchema = v.pipe(
  v.object({
    contract: v.optional(
      v.pipe(
        v.string(),
        v.description("The contract whose ABI declares the custom error: Broker, AllocationAdapter, ExpressLaneAdapter, AttestedAdapter, MockEIP3009Token, or the manifest's name for an adapter of your own. Absent for a revert string (Error), a Panic, an error no known ABI declares, and one several contracts declare (NotBroker, ZeroAddress): the revert data does not say which reverted."),
      ),
    ),
    name: v.pipe(v.string(), v.description('The custom error\'s name; Error for a revert string (args.reason), Panic for a panic (args.code), unknown when no known ABI declares the selector.')),
    args: v.pipe(v.record(v.string(), v.string()), v.description('The error\'s arguments by name (arg0, arg1… where the ABI leaves them unnamed): integers as decimal strings, addresses and bytes as hex.')),
    selector: v.optional(v.pipe(v.string(), v.regex(/^0x[0-9a-f]{8}$/), v.description('The revert data\'s first four bytes.'))),
    data: v.optional(v.pipe(HexSchema, v.description('The revert data as the node returned it.'))),
  }),
  v.description('A decoded revert.'),
)

export type Revert = v.InferOutput<typeof RevertSchema>

/**
 * Error answer of `POST /broker` (SPEC.md 2.6); never carries the order, signature or a
 * key. `revert` is present on WOULD_REVERT and AUTH_EXPIRED answers that come from a
 * decoded revert of the simulation.
 */
export const RelayFailureSchema = v.object({
  ok: v.literal(false),
  code: v.picklist(relayErrorCodeList),
  message: v.string(),
  revert: v.optional(RevertSchema),
})

export type RelayFailure = v.InferOutput<typeof RelayFailureSchema>

/** Rejection by the hardened edge (SPEC.md 7.2). */
export const EdgeRejectionSchema = v.object({
  ok: v.literal(false),
  code: v.picklist(edgeErrorCodeList),
  message: v.string(),
})

export type EdgeRejection = v.InferOutput<typeof EdgeRejectionSchema>

/**
 * Answer of `GET /info` (SPEC.md 2.7): the three fields of the specification, and what this
 * relayer accepts as payment (docs/economics.md); a client that reads only the three is
 * unaffected.
 */
export const RelayerInfoSchema = v.object({
  feeFloorBps: integerIn(0, 65535, 'feeFloorBps'),
  supportedChainIds: v.array(integerIn(1, Number.MAX_SAFE_INTEGER, 'chainId')),
  relayer: AddressSchema,
  acceptedTokens: v.optional(v.pipe(v.array(AcceptedTokenSchema), v.description('The pay tokens this relayer values; an order in another token is refused FEE_BELOW_FLOOR unless acceptsUnpricedTokens.'))),
  acceptsUnpricedTokens: v.optional(v.pipe(v.boolean(), v.description('Whether orders in other tokens are relayed, within an hourly gas budget.'))),
  minMarginBps: v.optional(v.pipe(integerIn(0, 1_000_000, 'minMarginBps'), v.description("What an order's fee must be worth beyond its gas cost, in basis points of that cost."))),
  gasPriceWei: v.optional(v.pipe(Uint256StringSchema, v.description('The price per gas an order would pay now: its gas × this (plus the margin) is what its fee must be worth.'))),
  signerKind: v.optional(
    v.pipe(GasSignerKindSchema, v.description("Where the relayer's gas key lives: private-key (RELAYER_PK), keystore, remote (a remote signer) or aws-kms. Which key, and whether it signs, is in GET /status.")),
  ),
})

export type RelayerInfo = v.InferOutput<typeof RelayerInfoSchema>

export { HexSchema }
