import type { Command } from '../command.ts'

/**
 * Every subcommand, in the order `--help` lists them. Each lives in its own file
 * here and exports one Command.
 */
export const commands: Command[] = []
