import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { cliEntry } from './cliEntry.ts'
import { BunNotFoundError, findBun } from './findBun.ts'

/**
 * `npx order-relay …` under Node: runs the CLI on bun (found by `findBun`) with this
 * process's arguments, terminal and environment, passes SIGINT/SIGTERM/SIGHUP on,
 * and resolves with its exit code (128 + the signal's number when a signal ended it).
 * Without bun it prints the install command and resolves 1.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2))
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  let bun: string
  try {
    bun = findBun()
  } catch (error) {
    if (!(error instanceof BunNotFoundError)) throw error
    process.stderr.write(`order-relay: ${error.message}\n`)
    return 1
  }
  const child = spawn(bun, [cliEntry(), ...argv], { stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal)
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  const handlers = signals.map((signal) => [signal, forward(signal)] as const)
  for (const [signal, handler] of handlers) process.on(signal, handler)
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject)
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)))
    })
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler)
  }
}
