// Starting order-relay's CLI from Node (`npx order-relay`, `order-relay/testing`): its
// servers run on Bun, installed from npm beside the package.
export { cliEntry } from './cliEntry.ts'
export { approveBunScript, BunNotFoundError, bunFromNodeModules, findBun, installRuntime, type SkippedBunScript } from './findBun.ts'
export { runCli } from './runCli.ts'
