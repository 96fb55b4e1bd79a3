// The one error base of order-relay: every error of the relayer, the indexer, the MCP
// server, the CLI and the client library extends it (docs/errors.md). Imports nothing
// of the project, so every module, the published client included, can use it.
export { type ExitCode, type FailureBody, OrderRelayError, type OrderRelayErrorOptions } from './OrderRelayError.ts'
