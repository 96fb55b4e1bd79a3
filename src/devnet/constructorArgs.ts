import { type Abi, type AbiParameter, type Address, getAddress, isAddress, isHex } from 'viem'
import { AdapterArtifactError } from './adapterArtifact.ts'

/**
 * Turns constructor arguments as a person writes them (on the command line every one
 * is a string: `broker,10000000,true`) into what viem encodes, by the constructor's
 * parameter types: integers from decimal or 0x strings and numbers, booleans from
 * `true`/`false`, arrays and tuples from JSON. An `address` may be a name from `names`
 * (`broker`, `payToken`, `consumer`…): the address the devnet gave it.
 *
 * @throws AdapterArtifactError naming the argument, what it must be, and the names known
 * @example
 * constructorArgs(abi, ['broker', '2'], { broker: '0x5FbD…' }, 'TicketAdapter') // ['0x5FbD…', 2n]
 */
export function constructorArgs(abi: Abi, raw: readonly unknown[], names: Record<string, Address>, contract: string): unknown[] {
  const constructor = abi.find((item) => item.type === 'constructor')
  const inputs: readonly AbiParameter[] = constructor && 'inputs' in constructor ? constructor.inputs : []
  const signature = inputs.map((input, i) => `${input.type} ${input.name || `arg${i}`}`).join(', ')
  if (raw.length !== inputs.length) {
    throw new AdapterArtifactError(`${contract}'s constructor takes ${inputs.length} argument${inputs.length === 1 ? '' : 's'} (${signature}); got ${raw.length}`)
  }
  return inputs.map((input, i) => coerce(input, raw[i], { names, where: `${contract} constructor argument ${input.name || `arg${i}`} (${input.type})` }))
}

type Context = { names: Record<string, Address>; where: string }

function fail(context: Context, what: string): never {
  throw new AdapterArtifactError(`${context.where}: ${what}`)
}

/** `uint256[]` → `uint256`, `(uint8,address)[2]` → the tuple; undefined when not an array type. */
function arrayElement(parameter: AbiParameter): AbiParameter | undefined {
  const match = parameter.type.match(/^(.*)\[\d*\]$/)
  return match ? { ...parameter, type: match[1]! } : undefined
}

function fromJson(value: unknown, context: Context): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return fail(context, 'must be JSON (an array or an object)')
  }
}

function coerce(parameter: AbiParameter, value: unknown, context: Context): unknown {
  const element = arrayElement(parameter)
  if (element) {
    const list = fromJson(value, context)
    if (!Array.isArray(list)) fail(context, 'must be a JSON array')
    return list.map((item, i) => coerce(element, item, { ...context, where: `${context.where}[${i}]` }))
  }
  const { type } = parameter
  if (type === 'tuple') {
    const components = 'components' in parameter ? parameter.components : []
    const given = fromJson(value, context)
    if (Array.isArray(given)) return components.map((component, i) => coerce(component, given[i], { ...context, where: `${context.where}.${component.name || i}` }))
    if (typeof given !== 'object' || given === null) fail(context, 'must be a JSON array or object of its components')
    return Object.fromEntries(
      components.map((component) => [component.name, coerce(component, (given as Record<string, unknown>)[component.name ?? ''], { ...context, where: `${context.where}.${component.name}` })]),
    )
  }
  if (type === 'address') {
    if (typeof value === 'string' && isAddress(value, { strict: false })) return getAddress(value)
    if (typeof value === 'string' && value in context.names) return context.names[value]
    return fail(context, `must be an address (0x + 40 hex digits) or one of ${Object.keys(context.names).join(', ')}`)
  }
  if (/^u?int\d*$/.test(type)) {
    if (typeof value === 'bigint') return value
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
    if (typeof value === 'string' && /^(-?\d+|0x[0-9a-fA-F]+)$/.test(value.trim())) return BigInt(value.trim())
    return fail(context, 'must be an integer (decimal, or 0x hex)')
  }
  if (type === 'bool') {
    if (typeof value === 'boolean') return value
    if (value === 'true' || value === 'false') return value === 'true'
    return fail(context, 'must be true or false')
  }
  if (/^bytes\d*$/.test(type)) {
    if (typeof value === 'string' && isHex(value)) return value
    return fail(context, 'must be hex bytes (0x…)')
  }
  if (type === 'string') {
    if (typeof value === 'string') return value
    return fail(context, 'must be a string')
  }
  return value
}
