// Type-checked by tsc (module nodenext) in the project that installed the tarball:
// the `types` condition resolves and the declarations are usable as published.
import { createRelayClient, type RelaySuccess, SubmitError, signOrder } from 'order-relay/client'
import { hashOrder, type Order, OrderSchema } from 'order-relay/wire'

const order: Order = {
  consumer: '0x0000000000000000000000000000000000000001',
  adapter: '0x0000000000000000000000000000000000000002',
  params: '0x',
  payToken: '0x0000000000000000000000000000000000000003',
  payee: '0x0000000000000000000000000000000000000004',
  amount: '1',
  nonce: '1',
  feeBps: 0,
}
export const orderHash: `0x${string}` = hashOrder(order)
export const schema = OrderSchema
export const client = createRelayClient({ url: 'http://127.0.0.1:8787' })
export const submit: (request: Parameters<typeof client.broker>[0]) => Promise<RelaySuccess> = client.broker
export const sign: typeof signOrder = signOrder
export const isSubmitError = (error: unknown): error is SubmitError => error instanceof SubmitError
