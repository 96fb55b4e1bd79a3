// Operations of the relayer: metrics, GET /ready, GET /status and the status page.
export { createRelayerOperations, type JournalHooks, type RelayerOperations } from './createOperations.ts'
export { type ReadyCheckDefinition } from './readiness.ts'
