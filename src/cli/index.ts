export { main } from './main.ts'
export { type Command, type CommandIo, CommandError, UsageError, parseFlags } from './command.ts'
