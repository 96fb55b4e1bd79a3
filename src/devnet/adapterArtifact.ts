import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { type Abi, type Hex, isHex } from 'viem'
import { OrderRelayError } from '../errors/index.ts'

/** A contract to deploy: its name, its ABI and its creation bytecode. */
export type AdapterArtifact = { name: string; abi: Abi; bytecode: Hex }

/** Thrown for an artifact that cannot be read or deployed; the message says what to fix. A usage error (exit 2). */
export class AdapterArtifactError extends OrderRelayError<'BAD_ADAPTER_ARTIFACT'> {
  override name = 'AdapterArtifactError'
  constructor(message: string) {
    super('BAD_ADAPTER_ARTIFACT', message, { exitCode: 2 })
  }
}

/**
 * An artifact as a build tool writes it: forge's `out/X.sol/X.json`
 * (`{ abi, bytecode: { object } }`), hardhat's (`{ contractName, abi, bytecode: "0x…" }`)
 * or a plain `{ abi, bytecode }`. `name` is the contract's name (what a relayer
 * reports as `receipt.adapter`); `where` says where it came from, for the messages.
 *
 * @throws AdapterArtifactError naming what is missing
 * @example
 * const artifact = toAdapterArtifact({ abi, bytecode: '0x6080…' }, 'TicketAdapter', 'TicketAdapter.json')
 */
export function toAdapterArtifact(json: unknown, name: string, where: string): AdapterArtifact {
  if (typeof json !== 'object' || json === null) throw new AdapterArtifactError(`${where}: not an artifact (expected a JSON object with abi and bytecode)`)
  const { abi, bytecode } = json as { abi?: unknown; bytecode?: unknown }
  if (!Array.isArray(abi) || !abi.every((item) => typeof item === 'object' && item !== null && typeof (item as { type?: unknown }).type === 'string')) {
    throw new AdapterArtifactError(`${where}: no abi (expected an array of ABI items, as forge writes under out/)`)
  }
  const code = typeof bytecode === 'object' && bytecode !== null ? (bytecode as { object?: unknown }).object : bytecode
  const hex = typeof code === 'string' && code !== '' && !code.startsWith('0x') ? `0x${code}` : code
  if (typeof hex === 'string' && /__\$[0-9a-fA-F]{34}\$__/.test(hex)) {
    throw new AdapterArtifactError(`${where}: the bytecode has unlinked libraries (__$…$__ placeholders): link them when building, or make their functions internal`)
  }
  if (typeof hex !== 'string' || !isHex(hex) || hex.length <= 2) {
    throw new AdapterArtifactError(`${where}: no creation bytecode (is ${name} an interface or an abstract contract? deploy a concrete contract)`)
  }
  return { name, abi: abi as Abi, bytecode: hex }
}

/**
 * Reads an artifact file (see `toAdapterArtifact`). The name is `name`, else hardhat's
 * `contractName`, else the file's name without `.json` (forge names the file after the
 * contract).
 *
 * @throws AdapterArtifactError for a missing file, bad JSON or an undeployable artifact
 * @example
 * const artifact = readAdapterArtifact('out/TicketAdapter.sol/TicketAdapter.json')
 * artifact.name // 'TicketAdapter'
 */
export function readAdapterArtifact(path: string, name?: string): AdapterArtifact {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file (build the contract first, e.g. forge build)' : (code ?? 'unreadable')
    throw new AdapterArtifactError(`cannot read the artifact ${path}: ${why}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new AdapterArtifactError(`the artifact ${path} is not valid JSON`)
  }
  const contractName = (json as { contractName?: unknown } | null)?.contractName
  return toAdapterArtifact(json, name ?? (typeof contractName === 'string' && contractName ? contractName : basename(path, '.json')), path)
}

/** The payment views of IAdapterPayment.sol: what the relayer and `order` read of an adapter's price. */
const paymentViews = new Set(['defaultPayment', 'vaultPayment', 'claimPayment'])

/**
 * The part of an ABI the manifest keeps: the errors and events a relayer decodes, and the
 * payment views (IAdapterPayment.sol) `order` and the relayer read an adapter's price from.
 */
export function relayerAbi(abi: Abi): Abi {
  return abi.filter((item) => item.type === 'error' || item.type === 'event' || (item.type === 'function' && paymentViews.has(item.name)))
}
