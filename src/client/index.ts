// The client library for consumers (`order-relay/client`).
export { signOrder, type SignOrderParameters } from './signOrder.ts'
export { readTokenDomain } from './tokenDomain.ts'
