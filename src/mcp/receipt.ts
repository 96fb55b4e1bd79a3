import * as v from 'valibot'
import { AddressSchema, BlockNumberStringSchema, Bytes32Schema, bytes32Pattern, decimalPatternUpTo, HexSchema } from '../wire/index.ts'

/** The one function a receipt may replay. */
export const isEncumberedSignature = 'isEncumbered(bytes32)' as const

/** A lien id: 32 bytes of hex. */
export const LienIdSchema = v.pipe(
  v.string('lienId must be a string'),
  v.regex(bytes32Pattern, 'lienId must be 32 bytes of hex: 0x followed by 64 hex digits'),
  v.description('The lien id (bytes32): 0x followed by 64 hex digits.'),
)

/** A block number given to the tool: a canonical decimal string or a JSON integer. */
export const BlockNumberInputSchema = v.union(
  [
    v.pipe(
      v.string(),
      v.regex(decimalPatternUpTo(19), 'blockNumber must be a decimal string of at most 19 digits, without sign or leading zero'),
      v.description('A block number as a decimal string.'),
    ),
    v.pipe(
      v.number(),
      v.integer('blockNumber must be a whole number'),
      v.minValue(0, 'blockNumber must not be negative'),
      v.maxValue(Number.MAX_SAFE_INTEGER, 'blockNumber is too large for a JSON integer: give it as a decimal string'),
    ),
  ],
  'blockNumber must be a block number: a decimal string or a non-negative integer',
)

/** The `is_encumbered` tool's arguments. */
export const IsEncumberedInputSchema = v.strictObject({
  lienId: LienIdSchema,
  blockNumber: v.optional(
    v.pipe(BlockNumberInputSchema, v.description('The block to read at (decimal string or integer); the latest block when absent.')),
  ),
})
export type IsEncumberedInput = v.InferOutput<typeof IsEncumberedInputSchema>

/**
 * Everything needed to replay an `is_encumbered` answer against any node: the
 * `eth_call` `request` run at the block `blockHash` (EIP-1898
 * `{blockHash, requireCanonical: true}`) on chain `chainId` returned `result`,
 * which decodes to `decoded`.
 */
export const ReceiptSchema = v.object({
  chainId: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('The chain the call was read on (eth_chainId).')),
  registry: v.pipe(AddressSchema, v.description('The LienRegistry contract called.')),
  blockNumber: v.pipe(BlockNumberStringSchema, v.description('The pinned block, as a decimal string.')),
  blockHash: v.pipe(Bytes32Schema, v.description('The pinned block\'s hash; the replay pins the block by this hash.')),
  request: v.pipe(
    v.object({ to: AddressSchema, data: HexSchema }),
    v.description('The exact eth_call transaction object: the registry and the isEncumbered(lienId) calldata.'),
  ),
  result: v.pipe(HexSchema, v.description('The raw eth_call result.')),
  decoded: v.pipe(
    v.object({
      function: v.literal(isEncumberedSignature),
      lienId: Bytes32Schema,
      encumbered: v.boolean(),
    }),
    v.description('The call and its result, decoded.'),
  ),
})
export type Receipt = v.InferOutput<typeof ReceiptSchema>

/** The `is_encumbered` tool's answer (its structured content). */
export const IsEncumberedOutputSchema = v.object({
  encumbered: v.pipe(v.boolean(), v.description('True while the lien is recorded, not released and not expired at the pinned block.')),
  receipt: ReceiptSchema,
})
export type IsEncumberedOutput = v.InferOutput<typeof IsEncumberedOutputSchema>
