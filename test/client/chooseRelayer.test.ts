// chooseRelayer (SPEC.md 1.7): reads every relayer's GET /info at once and picks
// the lowest fee floor that serves the order's chain at its fee; says why the others
// were passed over. Three real relayers with different RELAYER_FEE_FLOOR_BPS, one
// real relayer on another chain, an unreachable URL, a placeholder site and a
// server that never answers.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chooseRelayer, createRelayClient } from 'order-relay/client'
import { mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { createExposure } from '../relayer/support/exposure.ts'
import { startWatchedRelayer, type WatchedRelayer } from '../relayer/support/watchedRelayer.ts'
import { startFakeServer, startSilentServer } from './support/fakeRelayer.ts'
import { recordingFetch } from './support/recordingFetch.ts'

let devnet: Devnet
let otherChain: Devnet
const relayers: WatchedRelayer[] = []
const servers: { stop(): void }[] = []
const exposure = createExposure()
const fetchAndRecord = recordingFetch(exposure)

let floor30: WatchedRelayer
let floor10: WatchedRelayer
let floor10Too: WatchedRelayer
let wrongChain: WatchedRelayer
let unreachable: string
let placeholder: string
let silent: string

beforeAll(async () => {
  ;[devnet, otherChain] = await Promise.all([startDevnet({ chainId: 421614 }), startDevnet({ chainId: 46630 })])
  const start = async (on: Devnet, floor: number, key: keyof typeof devnetAccounts) => {
    const relayer = await startWatchedRelayer(on, exposure, { env: { RELAYER_FEE_FLOOR_BPS: String(floor), RELAYER_PK: devnetAccounts[key].privateKey } })
    relayers.push(relayer)
    return relayer
  }
  floor30 = await start(devnet, 30, 'relayer')
  floor10 = await start(devnet, 10, 'secondRelayer')
  floor10Too = await start(devnet, 10, 'spare')
  wrongChain = await start(otherChain, 0, 'relayer')
  unreachable = `http://127.0.0.1:${await freePort()}`
  const site = startFakeServer(() => new Response('<html>coming soon</html>', { headers: { 'content-type': 'text/html' } }))
  const hanging = startSilentServer()
  servers.push(site, hanging)
  placeholder = site.url
  silent = hanging.url
}, 60_000)
afterAll(async () => {
  for (const relayer of relayers) await relayer.stop()
  for (const server of servers) server.stop()
  await devnet?.stop()
  await otherChain?.stop()
})

const urls = () => [floor30.url, unreachable, floor10.url, wrongChain.url, placeholder, floor10Too.url, silent]

test('picks the lowest floor at or under the fee (ties: the first listed) and says why each other one was skipped', async () => {
  const started = Date.now()
  const { chosen, skipped } = await chooseRelayer(urls(), { chainId: 421614, feeBps: 20, timeoutMs: 500, fetch: fetchAndRecord })
  // Every /info was read at once: the silent server costs one timeout, not one per relayer.
  expect(Date.now() - started).toBeLessThan(1_500)
  expect(chosen).toMatchObject({ url: floor10.url, info: { feeFloorBps: 10, supportedChainIds: [421614], relayer: devnetAccounts.secondRelayer.address } })
  expect(skipped).toEqual([
    { url: floor30.url, reason: 'FEE_FLOOR_ABOVE_ORDER', message: "fee floor 30 bps is above the order's 20 bps" },
    { url: unreachable, reason: 'UNREACHABLE', message: `GET /info at ${unreachable}: could not reach the relayer; retry or try another relayer` },
    { url: wrongChain.url, reason: 'WRONG_CHAIN', message: 'serves chain 46630, not 421614' },
    {
      url: placeholder,
      reason: 'BAD_RESPONSE',
      message: 'GET /info: answered 200 with a body that is not JSON (text/html); is this URL a relayer?',
    },
    { url: floor10Too.url, reason: 'NOT_CHEAPEST', message: `fee floor 10 bps; ${floor10.url} asks 10 bps` },
    { url: silent, reason: 'UNREACHABLE', message: `GET /info at ${silent}: no answer within 500 ms; retry or try another relayer` },
  ])
})

test('a higher fee lets more relayers in; the cheapest still wins', async () => {
  const { chosen, skipped } = await chooseRelayer([floor30.url, floor10Too.url, floor10.url], { chainId: 421614, feeBps: 50 })
  expect(chosen?.url).toBe(floor10Too.url)
  expect(skipped).toEqual([
    { url: floor30.url, reason: 'NOT_CHEAPEST', message: `fee floor 30 bps; ${floor10Too.url} asks 10 bps` },
    { url: floor10.url, reason: 'NOT_CHEAPEST', message: `fee floor 10 bps; ${floor10Too.url} asks 10 bps` },
  ])
})

test('the other chain picks the relayer that serves it', async () => {
  const { chosen, skipped } = await chooseRelayer([floor10.url, wrongChain.url], { chainId: 46630, feeBps: 0 })
  expect(chosen).toMatchObject({ url: wrongChain.url, info: { feeFloorBps: 0, supportedChainIds: [46630], relayer: devnetAccounts.relayer.address } })
  expect(skipped).toEqual([{ url: floor10.url, reason: 'WRONG_CHAIN', message: 'serves chain 421614, not 46630' }])
})

test('no relayer fits: chosen is undefined and every one is explained', async () => {
  const { chosen, skipped } = await chooseRelayer([floor30.url, floor10.url, unreachable], { chainId: 421614, feeBps: 5, timeoutMs: 500 })
  expect(chosen).toBeUndefined()
  expect(skipped.map((entry) => entry.reason)).toEqual(['FEE_FLOOR_ABOVE_ORDER', 'FEE_FLOOR_ABOVE_ORDER', 'UNREACHABLE'])
  expect(await chooseRelayer([], { chainId: 421614, feeBps: 5 })).toEqual({ chosen: undefined, skipped: [] })
})

test('the chosen relayer settles the order and is paid the fee', async () => {
  const order = allocationOrder(devnet, { feeBps: 40 })
  const { chosen } = await chooseRelayer(urls(), { chainId: devnet.chainId, feeBps: order.feeBps, timeoutMs: 500, fetch: fetchAndRecord })
  const balance = () =>
    devnet.publicClient.readContract({ address: devnet.manifest.contracts.payToken, abi: mockEIP3009TokenAbi, functionName: 'balanceOf', args: [chosen!.info.relayer as `0x${string}`] })
  const before = await balance()
  const success = await createRelayClient({ url: chosen!.url, fetch: fetchAndRecord }).broker(await signed(devnet, order))
  expect(success.feeCollected).toBe('40000') // 0.4% of 10 USDC
  expect((await balance()) - before).toBe(40_000n)
  const tx = await devnet.publicClient.getTransaction({ hash: success.txHash as `0x${string}` })
  expect(tx.from).toBe(devnetAccounts.secondRelayer.address.toLowerCase() as `0x${string}`)
})

test('no key or signature in anything the client received, nor in any relayer log line', () => {
  expect(exposure.leaks()).toEqual([])
})
