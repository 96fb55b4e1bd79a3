// The embedded test chain harness: anvil via prool, deployed and seeded.
export { devnetAccounts, type DevnetAccount, type DevnetRole } from './accounts.ts'
export { AnvilNotFoundError, findAnvil } from './findAnvil.ts'
export { devnetPrice, devnetTokenPrice, type DevnetVault, manifestTokensVariable, seededLienId, usdc } from './seed.ts'
export { anvilInstance, type AnvilParameters } from './anvilInstance.ts'
export { type AnvilExit, type Devnet, startDevnet, type StartDevnetOptions } from './startDevnet.ts'
