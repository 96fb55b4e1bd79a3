import type { Command } from '../command.ts'
import { mcpCommand } from './mcp.ts'
import { relayerCommand } from './relayer.ts'
import { verifyReceiptCommand } from './verifyReceipt.ts'

/**
 * Every subcommand, in the order `--help` lists them. Each lives in its own file
 * here and exports one Command.
 */
export const commands: Command[] = [relayerCommand, mcpCommand, verifyReceiptCommand]
