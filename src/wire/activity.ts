import * as v from 'valibot'
import { AddressSchema, BlockNumberStringSchema, HexSchema } from './primitives.ts'

/** One decoded registry event (SPEC.md 2.2). */
export const ActivityEventSchema = v.object({
  name: v.string(),
  address: AddressSchema,
  blockNumber: BlockNumberStringSchema,
  logIndex: v.pipe(v.number(), v.integer(), v.minValue(0)),
  transactionHash: HexSchema,
  fields: v.pipe(
    v.record(v.string(), v.string()),
    v.description('The event arguments by name: integers as decimal strings, addresses and bytes as hex.'),
  ),
})

export type ActivityEvent = v.InferOutput<typeof ActivityEventSchema>

/** Body of `GET /activity` (SPEC.md 2.1). */
export const ActivitySnapshotSchema = v.object({
  source: v.literal('chain'),
  chainId: v.pipe(v.number(), v.integer()),
  addresses: v.pipe(
    v.tuple([AddressSchema, AddressSchema, AddressSchema, AddressSchema]),
    v.description('registry, inbox, pool, escrow, in that order'),
  ),
  deployedAt: BlockNumberStringSchema,
  indexedThrough: BlockNumberStringSchema,
  head: BlockNumberStringSchema,
  lagBlocks: v.pipe(v.number(), v.integer(), v.minValue(0)),
  stale: v.boolean(),
  truncated: v.boolean(),
  events: v.array(ActivityEventSchema),
})

export type ActivitySnapshot = v.InferOutput<typeof ActivitySnapshotSchema>
