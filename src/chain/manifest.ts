import { readFileSync } from 'node:fs'
import * as v from 'valibot'
import type { Abi, Address, Hex } from 'viem'
import { OrderRelayError } from '../errors/index.ts'
import { BlockNumberStringSchema, decimalPattern, isAddressString, isBytes32String } from '../wire/index.ts'

// The manifest is not a wire type (never in the OpenAPI document), so its schemas can
// give viem's template-literal types directly, checked by the wire's own shapes.
const AddressSchema = v.custom<Address>(isAddressString, 'must be an address')
const Bytes32Schema = v.custom<Hex>(isBytes32String, 'must be 32 bytes of hex')

const KeyedAccountSchema = v.object({ address: AddressSchema, privateKey: Bytes32Schema })
/** An ABI as forge and viem write it: an array of items, each with its `type`. */
const AbiSchema = v.custom<Abi>(
  (x) => Array.isArray(x) && x.every((item) => typeof item === 'object' && item !== null && typeof (item as { type?: unknown }).type === 'string'),
  'must be an ABI: an array of items, each with a type',
)

/**
 * The devnet / deploy manifest (DESIGN.md): where everything is. Written by
 * `order-relay devnet` and `order-relay deploy`, read by `--manifest` and
 * RELAYER_MANIFEST / INDEXER_MANIFEST. Only anvil's public dev keys ever appear in it.
 */
export const ManifestSchema = v.object({
  chainId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  rpcUrl: v.string(),
  /** A WebSocket URL of the same node (anvil serves one on its HTTP port): the relayer's default RELAYER_WS_URL when it uses `rpcUrl`. */
  wsUrl: v.optional(v.string()),
  relayerUrl: v.optional(v.string()),
  indexerUrl: v.optional(v.string()),
  deployedAt: BlockNumberStringSchema,
  contracts: v.object({
    broker: AddressSchema,
    payToken: AddressSchema,
    allocationAdapter: AddressSchema,
    expressLaneAdapter: AddressSchema,
    expressLaneAuction: AddressSchema,
    attestedAdapter: AddressSchema,
    registry: AddressSchema,
    inbox: AddressSchema,
    pool: AddressSchema,
    escrow: AddressSchema,
  }),
  accounts: v.optional(
    v.object({
      relayer: v.optional(AddressSchema),
      consumer: v.optional(KeyedAccountSchema),
      attestor: v.optional(KeyedAccountSchema),
      laneOperator: v.optional(KeyedAccountSchema),
    }),
  ),
  /**
   * What the deployment's pay tokens are worth in the chain's native currency, by token address,
   * each price written as RELAYER_TOKENS writes it (`0.01` native per whole token, or
   * `feed:<aggregator>`…): a relayer started from the manifest accepts them (docs/economics.md).
   */
  tokens: v.optional(v.record(v.string(), v.string())),
  /**
   * The allocation vaults: a slot of `vaultId` costs `price` base units of `contracts.payToken`, paid
   * to `payee`. The devnet always writes both; a manifest without them still reads
   * (then `order-relay order` asks the adapter).
   */
  vaults: v.optional(
    v.array(
      v.object({
        vaultId: v.string(),
        slots: v.number(),
        price: v.optional(v.pipe(v.string(), v.regex(decimalPattern, 'must be a decimal string'))),
        payee: v.optional(AddressSchema),
      }),
    ),
  ),
  /**
   * Adapters of a contract developer's own, deployed against this Broker (`devnet
   * --adapter`): each one's name, address and the errors and events of its ABI, so a
   * relayer started from the manifest decodes its reverts and its receipt by name.
   */
  adapters: v.optional(v.array(v.object({ name: v.string(), address: AddressSchema, abi: AbiSchema }))),
})

export type Manifest = v.InferOutput<typeof ManifestSchema>
export type ContractAddresses = Manifest['contracts']
/** One adapter of the manifest's `adapters`. */
export type ManifestAdapter = NonNullable<Manifest['adapters']>[number]

/** Thrown for a manifest that cannot be read or does not match the format: a usage or configuration error (exit 2). */
export class ManifestError extends OrderRelayError<'BAD_MANIFEST'> {
  override name = 'ManifestError'
  constructor(message: string) {
    super('BAD_MANIFEST', message, { exitCode: 2 })
  }
}

/**
 * Reads and validates a manifest file; the error names the file and the bad field.
 *
 * @example
 * const manifest = readManifest('.devnet/manifest.json')
 * manifest.contracts.broker // '0x…'
 */
export function readManifest(path: string): Manifest {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ManifestError(`cannot read manifest ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ManifestError(`manifest ${path} is not valid JSON`)
  }
  const parsed = v.safeParse(ManifestSchema, json)
  if (!parsed.success) {
    const issue = parsed.issues[0]
    const where = issue?.path?.map((p) => String(p.key)).join('.') ?? 'root'
    const what = issue && !issue.message.includes('eceived') ? issue.message : `expected ${issue?.expected ?? 'a valid value'}`
    throw new ManifestError(`manifest ${path} is invalid at ${where}: ${what}`)
  }
  return parsed.output
}
