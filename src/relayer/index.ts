// The relayer: POST /broker pipeline, GET /info, OpenAPI, hardened edge, submitter.
export { type EdgeConfig, readRelayerConfig, type RelayerConfig, type RelayerConfigOverrides, relayerDefaults, ConfigError } from './config.ts'
export { createRelayer, type Relayer, type RelayerDependencies, type RelayerServer } from './createRelayer.ts'
export { RelayError } from './errors.ts'
export { openApiDocument } from './http/openapi.ts'
export { checkJournalMatchesChain, checkRpcChain } from './startChecks.ts'
export { isTransportError, nodeSays } from './rpcErrors.ts'
