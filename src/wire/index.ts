// The shared types library: the wire schemas (single source of the types and of
// /api/openapi.json), the orderHash and the EIP-3009 typed data.
export * from './primitives.ts'
export * from './order.ts'
export * from './relay.ts'
export * from './activity.ts'
export * from './operations.ts'
export * from './economics.ts'
export * from './activityQuery.ts'
export * from './codes.ts'
export * from './routeFailure.ts'
export { encodeOrder, hashOrder, orderTupleAbi } from './hashOrder.ts'
export { keccak256, keccakReady } from './keccak.ts'
export { checksumAddress } from './checksumAddress.ts'
export {
  receiveAuthorizationTypedData,
  receiveWithAuthorizationTypes,
  type ReceiveAuthorizationParameters,
} from './authorization.ts'
export { describeIssues } from './describeIssues.ts'
export { findRevertFix, type RevertFix, revertFixes, revertFixFor, unknownRevertFix } from './revertFixes.ts'
export { fixFor } from './fixFor.ts'
export * from './brokerStatus.ts'
export * from './activityStream.ts'
