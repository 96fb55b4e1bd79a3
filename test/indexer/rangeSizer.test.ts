// The eth_getLogs range sizer against a node with a fixed block limit below
// INDEXER_MAX_RANGE: a backfill costs a handful of refusals, then runs at the limit.
// (Stepping down one block per refusal would cost a refused call every other call:
// about a thousand refusals for a 1,000-block limit under the default 2,000.)
import { expect, test } from 'bun:test'
import { createRangeSizer } from '../../src/indexer/sync/fetchLogs.ts'

/** Drives the sizer over `blocks` blocks against a node refusing ranges over `nodeLimit`. */
function backfill(max: number, nodeLimit: number, blocks: number) {
  const sizer = createRangeSizer(max)
  const tries: string[] = []
  let refusals = 0
  for (let left = BigInt(blocks); left > 0n; ) {
    const tried = sizer.size < left ? sizer.size : left
    if (tried > BigInt(nodeLimit)) {
      refusals++
      tries.push(`${tried}!`)
      sizer.refused(tried)
    } else {
      tries.push(`${tried}`)
      sizer.succeeded(tried)
      left -= tried
    }
  }
  return { refusals, tries }
}

test('a 1,000-block node limit under the default 2,000: a few refusals per relearn, then 1,000-block ranges', () => {
  const { refusals, tries } = backfill(2_000, 1_000, 1_000_000)
  expect(tries.slice(0, 8)).toEqual(['2000!', '1000', '1500!', '1000', '1250!', '1000', '1125!', '1000'])
  // 1,000 ranges of 1,000 blocks; it retries wider after 16 successes in a row, so
  // about 1 refusal in 17 calls, never 1 in 2.
  const accepted = tries.length - refusals
  expect(accepted).toBeLessThan(1_100)
  expect(refusals).toBeLessThan(accepted / 8)
})

test('a limit that is not a power-of-two fraction of the maximum (1,500 of 2,000) is found, not stepped toward', () => {
  const { refusals, tries } = backfill(2_000, 1_500, 300_000)
  expect(tries.slice(0, 6)).toEqual(['2000!', '1000', '1500', '1750!', '1500', '1625!'])
  expect(refusals).toBeLessThan((tries.length - refusals) / 8)
})

test('no limit: full ranges from the start, no refusal', () => {
  expect(backfill(2_000, 10_000, 50_000)).toEqual({ refusals: 0, tries: Array(25).fill('2000') })
})
