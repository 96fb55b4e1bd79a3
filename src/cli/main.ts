#!/usr/bin/env bun
import { type Command, type CommandIo, commandHelp } from './command.ts'
import { commands } from './commands/index.ts'
import { failureReport } from './lib/failureReport.ts'
import { invocation } from './lib/invocation.ts'
import { createLineWriter } from './lib/lineWriter.ts'
import { version, versionText } from './version.ts'

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    `order-relay ${version}: gas relayer for signed orders, registry activity indexer, MCP is_encumbered`,
    '',
    'Usage: order-relay <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${invocation()} <command> --help\` for its options and environment variables.`,
  ].join('\n')
}

/** Runs the CLI and resolves with the exit code (0 ok, 1 reported failure, 2 usage). */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage())
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v') {
    io.out(versionText())
    return 0
  }
  const command: Command | undefined = commands.find((c) => c.name === name)
  if (!command) {
    io.err(`order-relay: unknown command ${JSON.stringify(name.slice(0, 40))}`)
    io.err(usage())
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(command))
    return 0
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    // The error says what to print and how the command ends (its exitCode); never a stack trace.
    const { exitCode, lines } = failureReport(error, command)
    for (const line of lines) io.err(line)
    return exitCode
  }
}

if (import.meta.main) {
  const controller = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => controller.abort())
  // stdout is batched (a relayer's access log is a line per request); stderr is not.
  const out = createLineWriter((text) => process.stdout.write(text))
  process.on('exit', () => out.flush())
  const code = await main(process.argv.slice(2), {
    env: process.env,
    out: out.line,
    err: (line) => {
      out.flush()
      process.stderr.write(`${line}\n`)
    },
    signal: controller.signal,
  })
  out.flush()
  process.exit(code)
}
