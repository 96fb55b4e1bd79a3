// Chain entries, clients' helpers, the generated ABIs, revert decoding, deployment.
export * from './generated/artifacts.ts'
export { adapterEventAbis, brokeredEvent, errorAbis, registryAbis } from './abis.ts'
export { chainFor, defaultRpcUrl, knownChains, supportedChainIds } from './chains.ts'
export { encodeBrokerCall } from './encodeBrokerCall.ts'
export { formatEventArgs } from './formatEventArgs.ts'
export { type ContractAddresses, type Manifest, ManifestError, ManifestSchema, readManifest } from './manifest.ts'
export { decodeRevert, type DecodedRevert, extractRevertData, isRevertError } from './revert.ts'
export { deployContracts, type DeployProgress, type DeployedContracts } from './deploy.ts'
