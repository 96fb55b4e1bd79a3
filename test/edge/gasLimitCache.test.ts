// The gas-limit cache (docs/relayer-edges.md): keyed by (adapter, payToken), bounded, never
// above the block gas limit, and with no sticky maximum. The chain-level scenario (a
// gas-heavy token on a real devnet) is in test/chaos/edgesGasLimit.test.ts.
import { expect, test } from 'bun:test'
import type { Address, Hex, PublicClient } from 'viem'
import { createGasLimitCache } from '../../src/relayer/submitter/index.ts'

const adapter = '0x00000000000000000000000000000000000000aa' as Address
const light = '0x00000000000000000000000000000000000000d1' as Address
const heavy = '0x00000000000000000000000000000000000000d2' as Address
const call = (data: Hex) => ({ account: '0x00000000000000000000000000000000000000bb' as Address, to: '0x00000000000000000000000000000000000000cc' as Address, data })

/** A node whose estimate is whatever `gasFor` says for the call data right now. */
function fakeNode(gasFor: (data: Hex) => bigint, blockGasLimit = 30_000_000n) {
  const estimates: Hex[] = []
  const client = {
    getBlock: async () => ({ gasLimit: blockGasLimit }),
    estimateGas: async (request: { data: Hex }) => {
      estimates.push(request.data)
      return gasFor(request.data)
    },
  } as unknown as PublicClient
  return { client, estimates }
}

test('a gas-heavy pay token does not raise the limit of orders paid in another token to the same adapter', async () => {
  const { client } = fakeNode((data) => (data === '0x02' ? 900_000n : 100_000n))
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (gas) => gas + 1_000n })
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(101_000n)
  expect(await cache.get({ adapter, payToken: heavy }, call('0x02'))).toBe(901_000n)
  expect(await cache.get({ adapter, payToken: light }, call('0x03'))).toBe(101_000n)
  // Keys are case-insensitive addresses.
  expect(await cache.get({ adapter: adapter.toUpperCase().replace('0X', '0x') as Address, payToken: light }, call('0x04'))).toBe(101_000n)
})

test('no sticky maximum: a fresh estimate replaces a larger old one', async () => {
  let gas = 500_000n
  const { client } = fakeNode(() => gas)
  const cache = createGasLimitCache(client, { ttlMs: 0, pad: (g) => g })
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(500_000n)
  gas = 120_000n
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(120_000n)
})

test('never above the block gas limit, cached or estimated per order', async () => {
  const { client } = fakeNode(() => 9_000_000n, 10_000_000n)
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (g) => g * 2n })
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(10_000_000n)
  expect(await cache.estimate(call('0x01'))).toBe(10_000_000n)
})

test('bounded: past maxEntries the least recently used pair is forgotten', async () => {
  const { client, estimates } = fakeNode(() => 100_000n)
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (g) => g, maxEntries: 3 })
  const token = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address
  for (let n = 1; n <= 3; n++) await cache.get({ adapter, payToken: token(n) }, call('0x01'))
  await cache.get({ adapter, payToken: token(1) }, call('0x01')) // 1 is used again: 2 is now the oldest
  for (let n = 4; n <= 1000; n++) await cache.get({ adapter, payToken: token(n) }, call('0x01'))
  expect(cache.size).toBe(3)
  const before = estimates.length
  await cache.get({ adapter, payToken: token(1000) }, call('0x01'))
  expect(estimates.length).toBe(before)
  await cache.get({ adapter, payToken: token(2) }, call('0x01'))
  expect(estimates.length).toBe(before + 1)
})

test('after an out-of-gas transaction the adapter is estimated afresh, never doubled', async () => {
  const { client, estimates } = fakeNode(() => 200_000n)
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (g) => g })
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(200_000n)
  cache.bump(adapter, 200_000n)
  expect(await cache.get({ adapter, payToken: light }, call('0x01'))).toBe(200_000n)
  expect(estimates).toHaveLength(2)
})
