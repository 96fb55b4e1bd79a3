import { parseArgs, type ParseArgsConfig } from 'node:util'
import { OrderRelayError } from '../errors/index.ts'
import { errorLine } from '../shared/index.ts'

/** Thrown for bad flags or arguments: main prints it with the usage and exits 2. */
export class UsageError extends OrderRelayError<'USAGE'> {
  override name = 'UsageError'
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('USAGE', message, { ...options, exitCode: 2 })
  }
}

/** Thrown for a failure the command reports: main prints it (and its `fix`, when given) and exits 1. */
export class CommandError extends OrderRelayError<'COMMAND_FAILED'> {
  override name = 'CommandError'
  constructor(message: string, options: { fix?: string; cause?: unknown } = {}) {
    super('COMMAND_FAILED', message, options)
  }
}

export type CommandIo = {
  env: Record<string, string | undefined>
  out: (line: string) => void
  err: (line: string) => void
  /** Resolves when SIGINT/SIGTERM arrives (long-running commands await it). */
  signal: AbortSignal
}

export type Command = {
  name: string
  summary: string
  /** What follows the command name in its usage line (default `[options]`). */
  usage?: string
  /** Lines under "Arguments:" — `NAME  what it is`, for positional arguments. */
  arguments?: string[]
  /** Lines under "Options:" — `--flag VALUE  what it does (default …)`. */
  options: string[]
  /** Lines under "Environment:" — `NAME  what it does (default …)`. */
  environment: string[]
  /** Runs the command; resolves with the exit code. */
  run(argv: string[], io: CommandIo): Promise<number>
}

/** `node:util` parseArgs in strict mode, turning its errors into UsageError. */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals })
  } catch (error) {
    throw new UsageError(errorLine(error))
  }
}

/** `Usage: order-relay NAME …` for one command. */
export function usageLine(command: Command): string {
  return `Usage: order-relay ${command.name} ${command.usage ?? '[options]'}`
}

/** The `--help` text of one command. */
export function commandHelp(command: Command): string {
  const lines = [`order-relay ${command.name}: ${command.summary}`, '', usageLine(command)]
  if (command.arguments?.length) lines.push('', 'Arguments:', ...command.arguments.map((line) => `  ${line}`))
  if (command.options.length) lines.push('', 'Options:', ...command.options.map((line) => `  ${line}`))
  if (command.environment.length) lines.push('', 'Environment:', ...command.environment.map((line) => `  ${line}`))
  return lines.join('\n')
}

/** An http(s) URL given as `--name`, else a UsageError (a typo is a usage error, not an unreachable node). */
export function httpUrlFlag(name: string, value: string): string {
  let protocol: string | undefined
  try {
    protocol = new URL(value).protocol
  } catch {}
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--${name} must be an http(s) URL`)
  return value
}
