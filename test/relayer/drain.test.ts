// SIGTERM drain (DESIGN.md "Relayer"): `stop()` stops accepting at once, finishes
// every order already in the pipeline (all answered 200), then releases the port.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { createExposure } from './support/exposure.ts'
import { accessLinePattern, startWatchedRelayer, type WatchedRelayer } from './support/watchedRelayer.ts'

let devnet: Devnet
let relayer: WatchedRelayer
const exposure = createExposure()

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startWatchedRelayer(devnet, exposure)
}, 60_000)
afterAll(async () => {
  await devnet?.testClient.setAutomine(true).catch(() => {})
  await relayer?.stop()
  await devnet?.stop()
})

/** Whether something accepts TCP connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

test('stop() while orders are in flight: all of them settle and are answered 200, then the port closes', async () => {
  const port = Number(new URL(relayer.url).port)
  const count = 12
  const requests = await Promise.all(Array.from({ length: count }, () => signed(devnet, allocationOrder(devnet))))
  for (const request of requests) exposure.request(request)

  // Hold the transactions in the pool so the orders are certainly in flight when stop() comes.
  await devnet.testClient.setAutomine(false)
  const answers = Promise.all(requests.map((request) => relayer.post(request)))
  const relayerAddress = devnetAccounts.relayer.address
  const confirmed = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
  while ((await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' })) < confirmed + count) await Bun.sleep(5)
  expect(relayer.relayer.context.claims.held).toBe(count)

  let stopped = false
  const stopping = relayer.stop().then(() => {
    stopped = true
  })
  // Not accepting any more (once open keep-alive connections had their moment: createRelayer.ts),
  // but not done either: the orders are still waiting for their receipts.
  const deadline = Date.now() + 5_000
  while (await listening(port)) {
    if (Date.now() > deadline) throw new Error('the relayer still accepts connections 5 s after stop()')
    await Bun.sleep(20)
  }
  expect(stopped).toBe(false)

  await devnet.testClient.mine({ blocks: 1 })
  const settled = await answers
  await stopping
  expect(settled.map((answer) => answer.status)).toEqual(requests.map(() => 200))
  expect(settled.map((answer) => answer.body.orderHash)).toEqual(requests.map((request) => request.orderHash))
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(confirmed + count)
  expect(await listening(port)).toBe(false)
}, 30_000)

test('no key or signature in any log line or body; one access line per request', () => {
  expect(exposure.leaks()).toEqual([])
  const log = relayer.accessLog()
  expect(log.access).toEqual(log.expected)
  for (const line of log.access) expect(line).toMatch(accessLinePattern)
})
