// The adapter through order-relay's real pipeline, from `bun test`: a devnet with the
// adapter deployed against its Broker, orders signed by the devnet's consumer and sent
// to its relayer, every revert the adapter can produce read back by name.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SubmitError } from 'order-relay/client'
import { createOrder, sendOrder, signTestOrder, startDevnet, type TestDevnet } from 'order-relay/testing'
import { price, seat, ticketAdapter } from './ticket.ts'

let devnet: TestDevnet

beforeAll(async () => {
  devnet = await startDevnet({ adapters: [ticketAdapter] })
}, 180_000)

afterAll(async () => {
  await devnet?.stop()
})

async function refusal(promise: Promise<unknown>): Promise<SubmitError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(SubmitError)
  return error as SubmitError
}

test('a seat settles: payment and grant in one tx, the adapter\'s event decoded by name', async () => {
  const success = await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price })
  expect(success.receipt).toEqual({
    adapter: 'TicketAdapter',
    event: 'TicketIssued',
    fields: { orderHash: success.orderHash, holder: devnet.accounts.consumer.address, seat: '0' },
  })
  expect(success.feeCollected).toBe('50000') // 50 bps of 10 USDC to the relayer
  expect((await devnet.publicClient.getTransactionReceipt({ hash: success.txHash as `0x${string}` })).status).toBe('success')
})

test('the adapter\'s own errors, with their arguments by name, before any gas is spent', async () => {
  const { payToken } = devnet.manifest.contracts
  const payee = devnet.accounts.payee.address
  // error.revert is the decoded revert: match its name and arguments, not the message's text.
  const cheap = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(1n), amount: price / 2n }))
  expect(cheap.code).toBe('WOULD_REVERT')
  // WrongPayment is also the devnet's own adapters' error: `contract` is left out when several ABIs declare it.
  expect(cheap.revert).toMatchObject({ name: 'WrongPayment', args: { token: payToken, payee, amount: '5000000' }, selector: '0x4fd570b2' })
  // The relayer read the adapter's defaultPayment() (IAdapterPayment) to say what to pay instead.
  expect(cheap.message).toBe(`would revert: WrongPayment(token=${payToken}, payee=${payee}, amount=5000000); the adapter asks for amount=10000000 of payToken=${payToken} paid to payee=${payee}`)
  const holder = (await devnet.publicClient.readContract({
    address: devnet.adapters.TicketAdapter!,
    abi: [{ type: 'function', name: 'holders', stateMutability: 'view', inputs: [{ type: 'uint256' }], outputs: [{ type: 'bytes32' }] }],
    functionName: 'holders',
    args: [0n],
  })) as string
  const taken = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))
  expect(taken.revert).toMatchObject({ contract: 'TicketAdapter', name: 'SeatTaken', args: { seat: '0', heldBy: holder } })
  expect(taken.message).toBe(`would revert: SeatTaken(seat=0, heldBy=${holder})`)
  const nowhere = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(7n), amount: price }))
  expect(nowhere.revert).toMatchObject({ name: 'Error', args: { reason: 'TicketAdapter: no such seat' } })
})

test('the last seat sells, then the next order is SoldOut(sold=2, seats=2)', async () => {
  await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(1n), amount: price })
  const soldOut = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))
  expect(soldOut.revert).toMatchObject({ contract: 'TicketAdapter', name: 'SoldOut', args: { sold: '2', seats: '2' } })
  expect(soldOut.message).toBe('would revert: SoldOut(sold=2, seats=2)')
})

test('the token\'s and the Broker\'s refusals, as on any devnet: wrong signer, replay, expired window, fee over 100 %', async () => {
  const order = createOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price })
  const wrongSigner = await refusal(devnet.relayer.broker(await signTestOrder(devnet, order, { signer: 'payee' })))
  expect(wrongSigner.message).toBe('would revert: invalid signature')
  const expired = await refusal(devnet.relayer.broker(await signTestOrder(devnet, order, { validBefore: BigInt(Math.floor(Date.now() / 1000) - 60) })))
  expect(expired.code).toBe('AUTH_EXPIRED')
  const greedy = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price, feeBps: 10_001 }))
  expect(greedy.message).toBe('would revert: FeeTooHigh()')
  // A replay: the same signed order again, after it settled (vault 1 of the project's own allocation adapter).
  const request = await signTestOrder(devnet, createOrder(devnet, { adapter: 'allocationAdapter', params: seat(1n), amount: price }))
  const settled = await devnet.relayer.broker(request)
  const replay = await refusal(devnet.relayer.broker(request))
  expect([replay.code, replay.message]).toEqual(['WOULD_REVERT', `would revert: authorization used (already settled in tx ${settled.txHash}); build a new order with a fresh nonce`])
})
