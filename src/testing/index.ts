// `order-relay/testing`: a devnet for your tests (anvil, the project's contracts, your
// own adapters, the real relayer and indexer), and orders signed and sent through it.
// Runs from `bun test` and from Vitest under Node (the servers run on Bun, as a process).
export { startDevnet, type StartDevnetOptions, type TestAdapter, type TestDevnet } from './startDevnet.ts'
export { createOrder, type CreateOrderParameters, sendOrder, signTestOrder, type SignTestOrderOptions } from './orders.ts'
export { readManifest, type Manifest, type ManifestAdapter } from '../chain/manifest.ts'
export type { DevnetAccount, DevnetRole } from '../devnet/accounts.ts'
export { BunNotFoundError, installRuntime } from '../launcher/index.ts'
