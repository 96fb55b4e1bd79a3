import { mcpEnvironment, readMcpConfig } from '../../mcp/config.ts'
import { ConfigError, createLogger } from '../../shared/index.ts'
import { type Command, parseFlags, UsageError } from '../command.ts'
import { version } from '../version.ts'

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the MCP tool is_encumbered over stdio (run by an MCP client)',
  options: ['--manifest PATH   read chain, RPC and registry from a manifest (wins over INDEXER_MANIFEST)'],
  environment: mcpEnvironment,
  async run(argv, io) {
    const { values } = parseFlags(argv, { manifest: { type: 'string' } })
    let config
    try {
      config = readMcpConfig(io.env, { manifestPath: values.manifest })
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message)
      throw error
    }
    // stdout carries the MCP protocol: every diagnostic goes to stderr.
    const logger = createLogger(io.err)
    // Loaded when run, as every command's modules (see relayer.ts).
    const { createMcpServer, serveStdio } = await import('../../mcp/index.ts')
    const server = createMcpServer(config, { logger, version })
    logger.info(`order-relay mcp ${version}: is_encumbered on chain ${config.chainId}, registry ${config.registry}, over stdio`)
    await serveStdio(server, io.signal)
    return 0
  },
}
