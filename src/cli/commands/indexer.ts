import { ConfigError, indexerEnvironment, readIndexerConfig } from '../../indexer/config.ts'
import { createLogger, readLogFormat } from '../../shared/index.ts'
import { type Command, parseFlags, UsageError } from '../command.ts'

/** Reads the indexer config from env and flags, turning configuration problems into usage errors. */
export function indexerConfigFrom(env: Record<string, string | undefined>, values: { manifest?: string; port?: string }) {
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || Number(values.port) > 65535)) {
    throw new UsageError('--port must be a port number (0 to 65535)')
  }
  try {
    return readIndexerConfig(env, {
      manifestPath: values.manifest,
      ...(values.port !== undefined ? { port: Number(values.port) } : {}),
    })
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message)
    throw error
  }
}

export const indexerCommand: Command = {
  name: 'indexer',
  summary: 'run the registry activity indexer (GET /health, GET /activity)',
  options: [
    '--manifest PATH   read chain, RPC, addresses and deployedAt from a manifest (wins over INDEXER_MANIFEST)',
    '--port N          listening port (wins over INDEXER_PORT)',
  ],
  environment: indexerEnvironment,
  async run(argv, io) {
    const { values } = parseFlags(argv, { manifest: { type: 'string' }, port: { type: 'string' } })
    const logger = createLogger(io.out, readLogFormat(io.env))
    const config = indexerConfigFrom(io.env, values)
    // Loaded when run, as every command's modules (see relayer.ts).
    const { createIndexer } = await import('../../indexer/index.ts')
    const indexer = createIndexer(config, { logger })
    const server = await indexer.serve()
    logger.info(`indexer listening on ${server.url} (GET /activity, GET /health)`)
    if (!io.signal.aborted) {
      await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }))
    }
    logger.info('stopping the indexer')
    await server.stop()
    return 0
  },
}
