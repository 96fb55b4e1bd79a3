import * as v from 'valibot'
import { RelayerEconomicsSchema } from './economics.ts'
import { AddressSchema, BlockNumberStringSchema, Uint256StringSchema } from './primitives.ts'

const count = v.pipe(v.number(), v.integer(), v.minValue(0))
const nullableSeconds = v.nullable(v.pipe(v.number(), v.minValue(0)))

/**
 * Where the relayer's gas key lives: `private-key` (RELAYER_PK), `keystore` (an encrypted
 * keystore file), `remote` (a remote signer) or `aws-kms`. A string, not a closed list: a
 * client reading a relayer with a kind added later still reads its answer.
 */
export const GasSignerKindSchema = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9-]{1,32}$/, 'must be a signer kind such as private-key, keystore, remote or aws-kms'),
)

/** One readiness check of the relayer (`GET /ready`). */
export const ReadyCheckSchema = v.object({
  name: v.pipe(v.string(), v.description('rpc, chain, balance, key, spending, journal (signer with a remote signer or KMS, shared-state for relayer replicas sharing Redis)')),
  ok: v.boolean(),
  reason: v.optional(v.pipe(v.string(), v.description('Why the check fails and what to do; absent when ok.'))),
})

/** Body of `GET /ready` (200 ready, 503 not ready). */
export const ReadinessSchema = v.object({
  ready: v.boolean(),
  reason: v.optional(v.pipe(v.string(), v.description('The first failing check, in words; absent when ready.'))),
  checks: v.array(ReadyCheckSchema),
})

export type Readiness = v.InferOutput<typeof ReadinessSchema>
export type ReadyCheck = v.InferOutput<typeof ReadyCheckSchema>

/** Body of the relayer's `GET /status`, which its status page (`GET /`) shows. */
export const RelayerStatusSchema = v.object({
  version: v.string(),
  address: AddressSchema,
  chainId: v.pipe(v.number(), v.integer()),
  uptimeSeconds: v.pipe(v.number(), v.minValue(0)),
  balanceWei: v.pipe(v.nullable(Uint256StringSchema), v.description('Last balance read of the gas key; null before the first read.')),
  gasFloorWei: Uint256StringSchema,
  feeFloorBps: count,
  ordersPerMinute: v.pipe(v.record(v.string(), count), v.description('POST /broker answers in the last 60 s by code; OK = settled.')),
  latencySeconds: v.object({ count, p50: nullableSeconds, p90: nullableSeconds, p99: nullableSeconds }),
  inflight: count,
  pendingTransactions: v.pipe(v.nullable(count), v.description('Transactions from the gas key not mined yet; null when unknown.')),
  nonceGap: v.pipe(v.nullable(count), v.description('Nonces handed out and not used on chain yet; null when unknown.')),
  nonces: v.pipe(v.nullable(v.object({ latest: count, pending: count })), v.description("The node's mined and pending nonce of the gas key; null when unknown.")),
  sharedState: v.optional(
    v.pipe(
      v.object({
        state: v.picklist(['whole', 'unavailable', 'restoring']),
        reason: v.optional(v.pipe(v.string(), v.description('Why no new order is taken, and until when; absent when whole.'))),
        since: v.optional(v.pipe(v.string(), v.description('ISO 8601 time the shared state stopped being whole; absent when whole.'))),
      }),
      v.description('Relayer replicas (RELAYER_REDIS_URL): whether the shared state in Redis is whole. New orders are taken only while it is.'),
    ),
  ),
  signer: v.optional(
    v.pipe(
      v.object({
        kind: GasSignerKindSchema,
        description: v.pipe(v.string(), v.description('Which key: RELAYER_PK, a keystore file, a remote signer URL without credentials, a KMS key id and region. Never a secret.')),
        up: v.pipe(v.boolean(), v.description('false while the signer fails or times out: no new order is taken until it signs again.')),
        reason: v.optional(v.pipe(v.string(), v.description('Why it does not sign, and since when; absent while up.'))),
      }),
      v.description("The gas key's signer (docs/keys.md)."),
    ),
  ),
  economics: v.pipe(v.nullable(RelayerEconomicsSchema), v.description('Fees earned, gas spent, the hour against its cap (docs/economics.md); null before the journal is read.')),
})

export type RelayerStatus = v.InferOutput<typeof RelayerStatusSchema>

/** Body of the indexer's `GET /status`, which its status page (`GET /`) shows. */
export const IndexerStatusSchema = v.object({
  chainId: v.pipe(v.number(), v.integer()),
  deployedAt: BlockNumberStringSchema,
  indexedThrough: BlockNumberStringSchema,
  head: BlockNumberStringSchema,
  lagBlocks: count,
  stale: v.boolean(),
  truncated: v.boolean(),
  eventsHeld: count,
  recentEvents: v.object({
    fromBlock: BlockNumberStringSchema,
    byName: v.pipe(v.record(v.string(), count), v.description('Events per name in the blocks from fromBlock to head.')),
  }),
  lastReorg: v.nullable(v.object({ at: v.string(), forkPoint: BlockNumberStringSchema, depth: count })),
})

export type IndexerStatus = v.InferOutput<typeof IndexerStatusSchema>
