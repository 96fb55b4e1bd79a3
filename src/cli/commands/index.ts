import type { Command } from '../command.ts'
import { checkCommand } from './check.ts'
import { deployCommand } from './deploy.ts'
import { devnetCommand } from './devnet.ts'
import { indexerCommand } from './indexer.ts'
import { initCommand } from './init.ts'
import { keyCommand } from './key.ts'
import { mcpCommand } from './mcp.ts'
import { orderCommand } from './order.ts'
import { relayerCommand } from './relayer.ts'
import { serveCommand } from './serve.ts'
import { verifyReceiptCommand } from './verifyReceipt.ts'

/**
 * Every subcommand, in the order `--help` lists them. Each lives in its own file
 * here and exports one Command.
 */
export const commands: Command[] = [
  serveCommand,
  relayerCommand,
  indexerCommand,
  checkCommand,
  devnetCommand,
  mcpCommand,
  deployCommand,
  keyCommand,
  orderCommand,
  verifyReceiptCommand,
  initCommand,
]
