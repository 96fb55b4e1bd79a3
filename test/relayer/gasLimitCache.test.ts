// The per-adapter gas limit cache under a burst: orders arriving together for an
// adapter the relayer has not seen share one eth_estimateGas (the settlement
// benchmark's 32 first orders each sent their own, a second of anvil time), and an
// estimate that fails for its own order does not fail the orders waiting on it.
import { expect, test } from 'bun:test'
import type { Hex, PublicClient } from 'viem'
import { createGasLimitCache } from '../../src/relayer/submitter/index.ts'

const adapter = { adapter: '0x00000000000000000000000000000000000000aa', payToken: '0x00000000000000000000000000000000000000dd' } as const
const call = (data: Hex) => ({ account: '0x00000000000000000000000000000000000000bb' as const, to: '0x00000000000000000000000000000000000000cc' as const, data })

function fakeClient(answer: (data: Hex) => Promise<bigint>) {
  const calls: Hex[] = []
  const client = {
    getBlock: async () => ({ gasLimit: 30_000_000n }),
    estimateGas: (request: { data: Hex }) => {
      calls.push(request.data)
      return answer(request.data)
    },
  } as unknown as PublicClient
  return { client, calls }
}

test('32 orders at once for a new adapter: one estimate, every order gets its padded limit', async () => {
  const { client, calls } = fakeClient(async () => (await Bun.sleep(20), 100_000n))
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (gas) => gas + 1n })
  const limits = await Promise.all(Array.from({ length: 32 }, (_, i) => cache.get(adapter, call(`0x${i.toString(16).padStart(2, '0')}`))))
  expect(limits).toEqual(Array(32).fill(100_001n))
  expect(calls).toHaveLength(1)
  // Then cached: no more estimates.
  expect(await cache.get(adapter, call('0xff'))).toBe(100_001n)
  expect(calls).toHaveLength(1)
})

test('the shared estimate reverts for its own order: the others estimate their own', async () => {
  const { client, calls } = fakeClient(async (data) => {
    await Bun.sleep(10)
    if (data === '0xbad0') throw new Error('execution reverted: AllocationSoldOut(7)')
    return 90_000n
  })
  const cache = createGasLimitCache(client, { ttlMs: 60_000, pad: (gas) => gas })
  const results = await Promise.allSettled([cache.get(adapter, call('0xbad0')), cache.get(adapter, call('0x01')), cache.get(adapter, call('0x02'))])
  expect(results[0]!.status).toBe('rejected')
  expect(results.slice(1).map((result) => (result.status === 'fulfilled' ? result.value : result.reason))).toEqual([90_000n, 90_000n])
  expect(calls[0]).toBe('0xbad0')
})
