// The same adapter from Vitest under Node: order-relay/testing starts the devnet (its
// servers run on the bun installed beside the package), the order is followed with
// Prefer: respond-async and waitForOrder.
import { SubmitError } from 'order-relay/client'
import { createOrder, sendOrder, signTestOrder, startDevnet, type TestDevnet } from 'order-relay/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { price, seat, ticketAdapter } from './ticket.ts'

let devnet: TestDevnet
/** The order that took seat 0. */
let seatHolder = ''

beforeAll(async () => {
  devnet = await startDevnet({ adapters: [ticketAdapter], env: { RELAYER_FEE_FLOOR_BPS: '25' } })
})

afterAll(async () => {
  await devnet?.stop()
})

test('runs under Node, and the devnet\'s relayer took RELAYER_FEE_FLOOR_BPS', async () => {
  expect(process.versions.bun).toBeUndefined()
  expect(await devnet.relayer.info()).toMatchObject({ feeFloorBps: 25, supportedChainIds: [devnet.chainId], relayer: devnet.accounts.relayer.address })
  const cheap = await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price, feeBps: 10 }).catch((e: unknown) => e)
  expect(cheap).toBeInstanceOf(SubmitError)
  expect((cheap as SubmitError).code).toBe('FEE_BELOW_FLOOR')
})

test('handed over with brokerAsync, followed to its block with waitForOrder: the seat is the consumer\'s', async () => {
  const request = await signTestOrder(devnet, createOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))
  const submitted = await devnet.relayer.brokerAsync(request)
  expect(submitted.orderHash).toBe(request.orderHash)
  const final = await devnet.relayer.waitForOrder(submitted.orderHash, { timeout: 30_000, pollingInterval: 100 })
  expect([final.status, final.txHash]).toEqual(['settled', submitted.txHash])
  seatHolder = submitted.orderHash
})

test('the adapter\'s own revert, decoded by name from its ABI', async () => {
  const error = await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(SubmitError)
  expect((error as SubmitError).revert).toMatchObject({ contract: 'TicketAdapter', name: 'SeatTaken', args: { seat: '0', heldBy: seatHolder } })
  expect((error as SubmitError).message).toBe(`would revert: SeatTaken(seat=0, heldBy=${seatHolder})`)
})
