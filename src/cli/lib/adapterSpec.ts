import type { AdapterDeployment } from '../../devnet/index.ts'
import { UsageError } from '../command.ts'

/**
 * One `--adapter PATH.json[:ARGS]`: a forge or hardhat artifact and its constructor
 * arguments, either comma-separated (`broker,10000000,payee`) or a JSON array
 * (`["broker",10000000,["0x…"]]`, for arrays and tuples). Which argument is an
 * address, an integer or a string comes from the artifact's ABI (devnet/constructorArgs.ts).
 *
 * @throws UsageError for a spec without a `.json` file
 * @example
 * parseAdapterSpec('out/TicketAdapter.sol/TicketAdapter.json:broker,2')
 * // { artifact: 'out/TicketAdapter.sol/TicketAdapter.json', args: ['broker', '2'] }
 */
export function parseAdapterSpec(spec: string): AdapterDeployment {
  const match = spec.match(/^(.+?\.json)(?::(.*))?$/s)
  if (!match) throw new UsageError(`--adapter takes PATH.json[:ARGS], an artifact file and its constructor arguments (got ${JSON.stringify(spec.slice(0, 80))})`)
  const artifact = match[1]!
  const text = (match[2] ?? '').trim()
  if (text === '') return { artifact, args: [] }
  if (text.startsWith('[')) {
    let args: unknown
    try {
      args = JSON.parse(text)
    } catch {
      throw new UsageError(`--adapter ${artifact}: the arguments after ":" start with "[" but are not a JSON array`)
    }
    if (!Array.isArray(args)) throw new UsageError(`--adapter ${artifact}: the arguments after ":" must be a JSON array`)
    return { artifact, args }
  }
  return { artifact, args: text.split(',').map((arg) => arg.trim()) }
}
