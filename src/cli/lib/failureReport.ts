import { type ExitCode, OrderRelayError } from '../../errors/index.ts'
import { redactUrls } from '../../shared/index.ts'
import { type Command, usageLine } from '../command.ts'
import { invocation } from './invocation.ts'

/**
 * What the CLI prints when an error ends `command`, and the exit code, both asked of
 * the error: an OrderRelayError's message, its `fix` on a `fix:` line when it has one,
 * and its `exitCode` (2, a usage or configuration error, adds the command's usage
 * line). Any other error is a reported failure (1) shown by its message. Never a stack
 * trace; every URL is shown without credentials or query (a library's message may
 * quote an RPC URL).
 *
 * @example
 * failureReport(new UsageError('--fee-bps must be a whole decimal number'), orderCommand)
 * // { exitCode: 2, lines: ['order-relay order: --fee-bps must …', 'Usage: order-relay order [options]   (…)'] }
 */
export function failureReport(error: unknown, command: Command): { exitCode: ExitCode; lines: string[] } {
  const known = error instanceof OrderRelayError ? error : undefined
  const lines = [`order-relay ${command.name}: ${redactUrls(error instanceof Error ? error.message : String(error))}`]
  if (known?.fix) lines.push(`fix: ${redactUrls(known.fix)}`)
  const exitCode = known?.exitCode ?? 1
  if (exitCode === 2) lines.push(`${usageLine(command)}   (\`${invocation()} ${command.name} --help\` lists them)`)
  return { exitCode, lines }
}
