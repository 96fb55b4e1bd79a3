// The client library for consumers (`order-relay/client`): sign an order, pick a
// relayer, submit it, and read failures as SubmitError codes; follow an order or the
// indexer's activity as it changes (watchOrder, watchActivity).
export { chooseRelayer, type ChooseRelayerParameters, type ChooseRelayerResult, type SkippedRelayer, type SkipReason } from './chooseRelayer.ts'
export { type BrokerSubmitted, createRelayClient, type RelayClient, type RelayClientOptions } from './createRelayClient.ts'
export { parseRetryAfter } from './retryAfter.ts'
export { signOrder, type SignOrderParameters } from './signOrder.ts'
export { SubmitError, type SubmitErrorCode, type SubmitErrorOptions } from './SubmitError.ts'
export { readTokenDomain } from './tokenDomain.ts'
export type { WaitForOrderOptions } from './waitForOrder.ts'
export { type ActivityFilters, watchActivity, type WatchActivityParameters, type WatchActivityReturnType } from './watchActivity.ts'
export { WatchError, type WatchErrorCode } from './watchEventStream.ts'
export { watchOrder, type WatchOrderParameters } from './watchOrder.ts'
/** The base of SubmitError, WatchError and every other order-relay error: `code`, `shortMessage`, `fix`, `cause`, `walk`. */
export { OrderRelayError } from '../errors/index.ts'
export type { ActivityEvent, ActivityStreamStatus, BrokerStatus, Order, RelayerInfo, RelayRequest, RelaySuccess } from '../wire/index.ts'
