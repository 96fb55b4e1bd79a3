import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createPublicClient, http, type PublicClient } from 'viem'
import { chainFor } from '../chain/index.ts'
import type { Logger } from '../shared/index.ts'
import type { McpConfig } from './config.ts'
import { callIsEncumbered, isEncumberedTool, toolError } from './tool.ts'

export type McpServerDeps = {
  /** Diagnostics only; over stdio it must write to stderr, never stdout (the protocol). */
  logger: Logger
  version: string
}

/**
 * The MCP server with the one tool `is_encumbered`, not yet connected to a transport.
 *
 * @example
 * const server = createMcpServer(readMcpConfig(process.env), { logger, version })
 * await server.connect(new StdioServerTransport())
 */
export function createMcpServer(config: McpConfig, deps: McpServerDeps): Server {
  const client = createPublicClient({
    chain: chainFor(config.chainId, config.rpcUrl),
    transport: http(config.rpcUrl, { retryCount: 1, timeout: 10_000 }),
  }) as PublicClient
  const server = new Server(
    { name: 'order-relay', title: 'order-relay is_encumbered', version: deps.version },
    {
      capabilities: { tools: {} },
      instructions:
        'is_encumbered answers whether a lien (bytes32 lienId) is taken, read from the chain at one block, with a receipt anyone can replay on any node.',
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [isEncumberedTool] }))
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    if (request.params.name !== isEncumberedTool.name) return toolError('UNKNOWN_TOOL', `no tool ${JSON.stringify(request.params.name.slice(0, 40))}: the only tool is is_encumbered`)
    const result = await callIsEncumbered(request.params.arguments, { config, client })
    if (result.isError) deps.logger.warn(`is_encumbered: ${result.content[0]?.type === 'text' ? result.content[0].text : 'error'}`)
    return result
  })
  server.onerror = (error) => deps.logger.error(`mcp: ${error.message}`)
  return server
}

/**
 * Serves the MCP server over this process's stdin/stdout until stdin closes or
 * `signal` aborts. Nothing else may write to stdout meanwhile.
 */
export async function serveStdio(server: Server, signal: AbortSignal): Promise<void> {
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
    process.stdin.once('end', () => resolve())
    process.stdin.once('close', () => resolve())
    signal.addEventListener('abort', () => resolve(), { once: true })
  })
  await server.connect(transport)
  await closed
  await server.close().catch(() => {})
}
