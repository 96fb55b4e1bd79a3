/**
 * A tiny line logger. Lines go to a sink (stdout by default) so tests can capture
 * them; pino is avoided because its transports break inside `bun build --compile`.
 */
export type Logger = {
  info(line: string): void
  warn(line: string): void
  error(line: string): void
}

export type LogSink = (line: string) => void

export function createLogger(sink: LogSink = (line) => process.stdout.write(`${line}\n`)): Logger {
  return {
    info: (line) => sink(line),
    warn: (line) => sink(`warn: ${line}`),
    error: (line) => sink(`error: ${line}`),
  }
}

/** A logger that keeps its lines in memory (for tests). */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return { ...createLogger((line) => lines.push(line)), lines }
}

/** A logger that drops everything. */
export const silentLogger: Logger = createLogger(() => {})
