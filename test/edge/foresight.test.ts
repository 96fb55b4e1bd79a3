// The chain clock and the window rule at their boundaries (docs/relayer-edges.md), with a
// node that answers whatever block the test says (the chain-level scenarios are in
// test/chaos/edgesWindow.test.ts).
import { expect, test } from 'bun:test'
import type { PublicClient } from 'viem'
import { createChainClock } from '../../src/relayer/chainClock.ts'
import { RelayError } from '../../src/relayer/index.ts'
import { checkAuthorizationWindow } from '../../src/relayer/steps/checkAuthorizationWindow.ts'
import { isExpiredReason } from '../../src/relayer/steps/simulate.ts'
import { silentLogger } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'

function node(blocks: { pending?: bigint; latest: bigint }) {
  return {
    getBlock: async ({ blockTag }: { blockTag: 'pending' | 'latest' }) => {
      if (blockTag === 'pending' && blocks.pending === undefined) throw new Error('pending not served')
      return { timestamp: blockTag === 'pending' ? blocks.pending! : blocks.latest }
    },
  } as unknown as PublicClient
}

const wall = 1_800_000_000_000 // ms
const clockOver = (blocks: { pending?: bigint; latest: bigint }) => createChainClock(node(blocks), { refreshMs: 1_000, logger: silentLogger, wallClockMs: () => wall })

test('an idle chain whose head is a minute old: the clock is the wall clock, not the head', async () => {
  expect(await clockOver({ latest: 1_799_999_940n }).now()).toBe(1_800_000_000n)
  expect(await clockOver({ pending: 1_799_999_940n, latest: 1_799_999_940n }).now()).toBe(1_800_000_000n)
})

test('a chain ahead of the wall clock (a warped devnet): its pending block wins for expiry', async () => {
  expect(await clockOver({ pending: 1_800_003_600n, latest: 1_799_999_999n }).now()).toBe(1_800_003_600n)
})

test('for validAfter the earlier of chain and wall counts: a fast relayer clock or an old head never opens a window early', async () => {
  expect(await clockOver({ latest: 1_799_999_940n }).earliest()).toBe(1_799_999_940n)
  expect(await clockOver({ pending: 1_800_003_600n, latest: 1_799_999_999n }).earliest()).toBe(1_800_000_000n)
})

test('validAfter is judged by the earliest time, validBefore by the latest', async () => {
  const skewed = { clock: { now: async () => 500n, earliest: async () => 490n, earliestFor: async () => 490n } } as unknown as Parameters<typeof checkAuthorizationWindow>[0]
  expect(await outcome(checkAuthorizationWindow(skewed, request(495n, 1000n)))).toBe(
    'WOULD_REVERT: would revert: authorization not yet valid (validAfter 495, chain time 490); valid from 496 (unix seconds, in 6 s): send the same order again then, no need to re-sign',
  )
  expect(await outcome(checkAuthorizationWindow(skewed, request(0n, 502n)))).toBe(
    'AUTH_EXPIRED: authorization window has passed (validBefore 502, chain time 500); re-sign with a fresh window',
  )
})

test("a time that is the relayer's clock, not the chain's, is called so, with the chain's beside it", async () => {
  // A chain whose next block is at 505 while this host says 490: validAfter is judged by the host's clock.
  const behind = { clock: { now: async () => 505n, earliest: async () => 490n, earliestFor: async () => 490n, chainEstimate: async () => 505n } } as unknown as Parameters<typeof checkAuthorizationWindow>[0]
  expect(await outcome(checkAuthorizationWindow(behind, request(495n, 1000n)))).toBe(
    "WOULD_REVERT: would revert: authorization not yet valid (validAfter 495, this relayer's clock 490; chain time 505); valid from 496 (unix seconds, in 6 s): send the same order again then, no need to re-sign",
  )
  const ahead = { clock: { now: async () => 500n, earliest: async () => 480n, earliestFor: async () => 480n, chainEstimate: async () => 480n } } as unknown as Parameters<typeof checkAuthorizationWindow>[0]
  expect(await outcome(checkAuthorizationWindow(ahead, request(479n, 600n)))).toBe('open')
  // An idle chain whose estimate (480) is behind this host's 500: expiry is judged by the host's clock.
  expect(await outcome(checkAuthorizationWindow(ahead, request(0n, 501n)))).toBe(
    "AUTH_EXPIRED: authorization window has passed (validBefore 501, this relayer's clock 500; chain time 480); re-sign with a fresh window",
  )
})

const request = (validAfter: bigint, validBefore: bigint) => ({ validAfter: validAfter.toString(), validBefore: validBefore.toString() }) as unknown as RelayRequest
const at = (now: bigint) => ({ clock: { now: async () => now, earliest: async () => now, earliestFor: async () => now } }) as unknown as Parameters<typeof checkAuthorizationWindow>[0]
const outcome = (promise: Promise<void>) =>
  promise.then(
    () => 'open',
    (error: RelayError) => `${error.code}: ${error.message}`,
  )

test('validAfter is strict (USDC: now > validAfter); validBefore keeps a 2 s margin (USDC: now < validBefore)', async () => {
  expect(await outcome(checkAuthorizationWindow(at(100n), request(100n, 1000n)))).toBe(
    'WOULD_REVERT: would revert: authorization not yet valid (validAfter 100, chain time 100); valid from 101 (unix seconds, in 1 s): send the same order again then, no need to re-sign',
  )
  expect(await outcome(checkAuthorizationWindow(at(101n), request(100n, 1000n)))).toBe('open')
  expect(await outcome(checkAuthorizationWindow(at(997n), request(0n, 1000n)))).toBe('open')
  expect(await outcome(checkAuthorizationWindow(at(998n), request(0n, 1000n)))).toBe(
    'AUTH_EXPIRED: authorization window has passed (validBefore 1000, chain time 998); re-sign with a fresh window',
  )
})

test('an order sent at the second it was told is valid from is not refused for the clock rounding a sample to whole seconds', async () => {
  // A node that stamps its pending block with the whole second of its (here: the test's) clock.
  let wallMs = 1_800_000_000_999 // the clock's sample is read 1 ms before a second ends: it says ...000
  let reads = 0
  const stamping = {
    getBlock: async () => {
      reads++
      return { timestamp: BigInt(Math.floor(wallMs / 1000)) }
    },
  } as unknown as PublicClient
  const clock = createChainClock(stamping, { refreshMs: 1_000, logger: silentLogger, wallClockMs: () => wallMs })
  const context = { clock } as unknown as Parameters<typeof checkAuthorizationWindow>[0]
  expect(await outcome(checkAuthorizationWindow(context, request(1_800_000_001n, 1_800_000_600n)))).toBe(
    'WOULD_REVERT: would revert: authorization not yet valid (validAfter 1800000001, chain time 1800000000); valid from 1800000002 (unix seconds, in 2 s): send the same order again then, no need to re-sign',
  )
  expect(reads).toBe(2) // the sample, then a fresh read at the edge: still not valid
  // 1.5 s on, the chain's clock says ...002, but the sample plus whole seconds elapsed says ...001.
  wallMs = 1_800_000_002_500
  expect(await clock.earliest()).toBe(1_800_000_001n)
  expect(await outcome(checkAuthorizationWindow(context, request(1_800_000_001n, 1_800_000_600n)))).toBe('open')
  expect(reads).toBe(3)
  // Far from the edge the sample answers alone: no read per order.
  expect(await outcome(checkAuthorizationWindow(context, request(1_800_000_100n, 1_800_000_600n)))).toStartWith('WOULD_REVERT')
  expect(reads).toBe(3)
})

test('at the edge, a fresh read that fails keeps the cached estimate: the order is refused, not answered UPSTREAM_RPC', async () => {
  let reads = 0
  const failingAfterOne = {
    getBlock: async () => {
      if (++reads > 1) throw new Error('node down')
      return { timestamp: 1_800_000_000n }
    },
  } as unknown as PublicClient
  const clock = createChainClock(failingAfterOne, { refreshMs: 1_000, logger: silentLogger, wallClockMs: () => wall })
  expect(await clock.earliestFor(1_800_000_000n)).toBe(1_800_000_000n)
  expect(reads).toBeGreaterThan(1) // the sample, then the fresh read (and its fallback to latest), which failed
})

test("a token's expired revert is AUTH_EXPIRED, the mock's and Circle's wording alike", () => {
  expect(['authorization expired', 'FiatTokenV2: authorization is expired', 'FiatTokenV2: authorization is not yet valid', 'authorization used'].map(isExpiredReason)).toEqual([
    true,
    true,
    false,
    false,
  ])
})
