import type { Command } from '../command.ts'
import { relayerCommand } from './relayer.ts'

/**
 * Every subcommand, in the order `--help` lists them. Each lives in its own file
 * here and exports one Command.
 */
export const commands: Command[] = [relayerCommand]
