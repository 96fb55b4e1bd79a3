// A settled order sent again once its authorization window has passed, to a relayer that
// never saw it (its client tried a second relayer, or a replica whose shared outcome is
// gone): the passed window is no reason to sign again when the order settled within it.
// The relayer asks the token before it answers AUTH_EXPIRED ("re-sign"), and answers the
// settlement instead; an order that did not settle still gets AUTH_EXPIRED.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { chainTime } from './support/chain.ts'
import { createExposure } from './support/exposure.ts'
import { startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let first: WatchedRelayer
let second: WatchedRelayer | undefined
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  first = await startWatchedRelayer(devnet, exposure)
}, 60_000)
afterAll(async () => {
  await second?.stop()
  await first?.stop()
  await devnet?.stop()
})

test('settled at one relayer, sent to another after its window passed: the replay answer naming the settling tx, never AUTH_EXPIRED', async () => {
  const validBefore = (await chainTime(devnet)) + 60n
  const request = await signed(devnet, allocationOrder(devnet), { validBefore })
  exposure.request(request)
  const settled = await first.post(request)
  expect(settled.status).toBe(200)
  const txHash = settled.body.txHash as Hex

  // Past the window on the chain's clock; the second relayer reads that time as it starts.
  await devnet.testClient.increaseTime({ seconds: 120 })
  await devnet.testClient.mine({ blocks: 1 })
  expect(await chainTime(devnet)).toBeGreaterThan(validBefore)
  second = await startWatchedRelayer(devnet, exposure, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  const nonce = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.secondRelayer.address })

  const again = await second.post(request)
  expect({ status: again.status, code: again.body.code, message: again.body.message }).toEqual({
    status: 422,
    code: 'WOULD_REVERT',
    message: `would revert: authorization used (already settled in tx ${txHash}); build a new order with a fresh nonce`,
  })
  // An order that never settled, past its window: AUTH_EXPIRED, and nothing sent for either.
  const unsettled = await signed(devnet, allocationOrder(devnet), { validBefore: (await chainTime(devnet)) - 1n })
  exposure.request(unsettled)
  const expired = await second.post(unsettled)
  expect({ status: expired.status, code: expired.body.code }).toEqual({ status: 422, code: 'AUTH_EXPIRED' })
  expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.secondRelayer.address })).toBe(nonce)
}, 60_000)

test('no key or signature in any log line or body', () => {
  expect(exposure.leaks()).toEqual([])
})
