import { OrderRelayError } from '../errors/index.ts'
import { isAddressString, isBytes32String } from '../wire/primitives.ts'

/**
 * Thrown when configuration is invalid; the message names each bad variable (never its
 * value when secret). The CLI answers it with the command's usage line and exit code 2.
 */
export class ConfigError<code extends string = 'CONFIG'> extends OrderRelayError<code> {
  override name = 'ConfigError'
  /** `code`: a kind of configuration problem with a code of its own (StoreMismatchError). */
  constructor(message: string, options: { details?: string; cause?: unknown } = {}, code = 'CONFIG' as code) {
    super(code, message, { ...options, exitCode: 2 })
  }
}

export type Env = Record<string, string | undefined>

/** The order n of secp256k1: a private key is a scalar from 1 to n − 1. */
const secp256k1Order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * Collects configuration problems so a user sees all of them at once, each naming
 * the variable and what it expects.
 */
export function createEnvReader(env: Env) {
  const problems: string[] = []
  const has = (name: string) => env[name] !== undefined && env[name] !== ''

  function integer(name: string, fallback: number | undefined, min: number, max: number): number | undefined {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw.slice(0, 40))})`)
      return fallback
    }
    return Number(raw)
  }

  function positiveNumber(name: string, fallback: number): number {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const value = Number(raw)
    if (!Number.isFinite(value) || value <= 0) {
      problems.push(`${name} must be a positive number (got ${JSON.stringify(raw.slice(0, 40))})`)
      return fallback
    }
    return value
  }

  function bigintValue(name: string, fallback: bigint): bigint {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (!/^\d+$/.test(raw)) {
      problems.push(`${name} must be a whole number of wei (got ${JSON.stringify(raw.slice(0, 40))})`)
      return fallback
    }
    return BigInt(raw)
  }

  function url(name: string, fallback: string | undefined): string | undefined {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    try {
      const parsed = new URL(raw)
      if (!/^(https?|wss?):$/.test(parsed.protocol)) throw new Error('protocol')
      return raw
    } catch {
      problems.push(`${name} must be an http(s) or ws(s) URL`)
      return fallback
    }
  }

  function address(name: string): `0x${string}` | undefined {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    if (!isAddressString(raw)) {
      problems.push(`${name} must be an address: 0x followed by 40 hex digits`)
      return undefined
    }
    return raw as `0x${string}`
  }

  /** A private key: validated, never echoed. */
  function privateKey(name: string, required: boolean): `0x${string}` | undefined {
    const raw = env[name]
    if (raw === undefined || raw === '') {
      if (required) problems.push(`${name} is required: the hex private key of the gas account (0x + 64 hex digits)`)
      return undefined
    }
    const normalized = raw.trim().startsWith('0x') ? raw.trim() : `0x${raw.trim()}`
    if (!isBytes32String(normalized)) {
      problems.push(`${name} must be 0x followed by 64 hex digits (value not shown)`)
      return undefined
    }
    // viem would otherwise throw later with the key's value in decimal in its message.
    const scalar = BigInt(normalized)
    if (scalar === 0n || scalar >= secp256k1Order) {
      problems.push(`${name} is not a valid secp256k1 private key: it must be from 1 to the curve order minus 1 (value not shown)`)
      return undefined
    }
    return normalized as `0x${string}`
  }

  function flag(name: string): boolean {
    const raw = env[name]
    if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false
    if (raw === '1' || raw === 'true') return true
    problems.push(`${name} must be 1 or 0`)
    return false
  }

  function list(name: string): string[] {
    return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  }

  function string(name: string, fallback?: string): string | undefined {
    return has(name) ? env[name] : fallback
  }

  function problem(message: string) {
    problems.push(message)
  }

  /** Throws one ConfigError listing every problem found. */
  function done(what: string) {
    if (problems.length > 0) {
      throw new ConfigError(`invalid ${what} configuration:`, { details: `  - ${problems.join('\n  - ')}` })
    }
  }

  return { has, integer, positiveNumber, bigint: bigintValue, url, address, privateKey, flag, list, string, problem, done }
}

/** What `createEnvReader` returns: typed readers of variables that collect every problem. */
export type EnvReader = ReturnType<typeof createEnvReader>
