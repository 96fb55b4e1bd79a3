// A burst of orders at a freshly started relayer: the chain clock and the gas price are
// not known yet, and every order needs both. One read of each must serve the whole
// burst (src/shared/sharedInFlight.ts); before, each order made its own, and on anvil a
// `pending` block read executes the whole pool.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer } from '../helpers/relayer.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'

let devnet: Devnet
let flaky: ReturnType<typeof startFlakyRpc>

beforeAll(async () => {
  devnet = await startDevnet()
  flaky = startFlakyRpc(devnet.rpcUrl)
}, 60_000)
afterAll(async () => {
  flaky?.stop()
  await devnet?.stop()
})

test('32 orders at a cold relayer: one pending-block read and one gas price read between them', async () => {
  const requests = await Promise.all(Array.from({ length: 32 }, () => signed(devnet, allocationOrder(devnet))))
  const relayer = await startTestRelayer(devnet, { env: { RELAYER_RPC_URL: flaky.url } })
  try {
    flaky.calls.length = 0
    const answers = await Promise.all(requests.map((request) => relayer.post(request)))
    expect(answers.map((answer) => answer.status)).toEqual(requests.map(() => 200))
    const pendingBlockReads = flaky.calls.filter((call) => call.method === 'eth_getBlockByNumber' && call.params[0] === 'pending')
    const priceReads = flaky.calls.filter((call) => call.method === 'eth_maxPriorityFeePerGas')
    expect(pendingBlockReads.length).toBeLessThanOrEqual(2)
    expect(priceReads.length).toBeLessThanOrEqual(2)
  } finally {
    await relayer.stop()
  }
}, 60_000)
