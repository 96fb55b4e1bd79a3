import { ConfigError, type Env } from './env.ts'

/**
 * A tiny line logger. Lines go to a sink (stdout by default) so tests can capture
 * them; pino is avoided because its transports break inside `bun build --compile`.
 *
 * `fields` are the structured values the line already shows (the access log's
 * method, path, status and code): the text format ignores them, the JSON format
 * writes them next to `message`. Never put a key, a signature or an order in either.
 */
export type Logger = {
  info(line: string, fields?: LogFields): void
  warn(line: string, fields?: LogFields): void
  error(line: string, fields?: LogFields): void
}

export type LogFields = Record<string, string | number | boolean>
export type LogSink = (line: string) => void
export type LogFormat = 'text' | 'json'
export const logFormats: readonly LogFormat[] = ['text', 'json']

/**
 * `LOG_FORMAT`: `text` (the default; `warn: `/`error: ` prefixes) or `json` (one
 * object per line: time, level, message and the line's fields).
 * @throws ConfigError for any other value.
 */
export function readLogFormat(env: Env): LogFormat {
  const raw = env.LOG_FORMAT
  if (raw === undefined || raw === '') return 'text'
  if ((logFormats as readonly string[]).includes(raw)) return raw as LogFormat
  throw new ConfigError(`LOG_FORMAT must be text or json (got ${JSON.stringify(raw.slice(0, 40))})`)
}

export function createLogger(sink: LogSink = (line) => process.stdout.write(`${line}\n`), format: LogFormat = 'text'): Logger {
  if (format === 'json') {
    const write = (level: string) => (message: string, fields?: LogFields) =>
      sink(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }))
    return { info: write('info'), warn: write('warn'), error: write('error') }
  }
  return {
    info: (line) => sink(line),
    warn: (line) => sink(`warn: ${line}`),
    error: (line) => sink(`error: ${line}`),
  }
}

/** A logger that keeps its lines in memory (for tests). */
export function createMemoryLogger(format: LogFormat = 'text'): Logger & { lines: string[] } {
  const lines: string[] = []
  return { ...createLogger((line) => lines.push(line), format), lines }
}

/** A logger that drops everything. */
export const silentLogger: Logger = createLogger(() => {})
