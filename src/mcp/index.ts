// The MCP `is_encumbered` server and its receipts: read a lien's state at a pinned
// block, and replay that read on any node.
export { readMcpConfig, mcpEnvironment, type McpConfig, type McpConfigOverrides } from './config.ts'
export { McpError, type McpErrorCode } from './errors.ts'
export {
  readIsEncumbered,
  type ReadIsEncumberedErrorType,
  type ReadIsEncumberedParameters,
  type ReadIsEncumberedReturnType,
} from './isEncumbered.ts'
export {
  IsEncumberedInputSchema,
  type IsEncumberedInput,
  IsEncumberedOutputSchema,
  type IsEncumberedOutput,
  type Receipt,
  ReceiptSchema,
} from './receipt.ts'
export { createMcpServer, type McpServerDeps, serveStdio } from './server.ts'
export { isEncumberedTool } from './tool.ts'
export {
  parseReceipt,
  type ReceiptCheck,
  verifyReceipt,
  type VerifyReceiptErrorType,
  type VerifyReceiptOptions,
  type VerifyReceiptReturnType,
} from './verifyReceipt.ts'
