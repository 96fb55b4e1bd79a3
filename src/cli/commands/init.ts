import type { Command } from '../command.ts'
import { initArguments, initSummary, initUsage, runInit } from '../lib/initProject.ts'

/** `order-relay init [DIR]`: the package's example project, copied for a contract developer to start from. */
export const initCommand: Command = {
  name: 'init',
  summary: initSummary,
  usage: initUsage,
  arguments: initArguments,
  options: [],
  environment: [],
  async run(argv, io) {
    return runInit(argv, io)
  },
}
