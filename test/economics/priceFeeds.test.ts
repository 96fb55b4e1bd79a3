// Pay tokens valued by Chainlink-compatible feeds (AggregatorV3Interface.latestRoundData),
// read in the background: an aggregator deployed on the devnet answers like Chainlink's.
// A stale or non-positive answer leaves the token unvalued (its orders refused before any
// simulation) until a fresh answer comes; the three ways to write a feed price convert as
// docs/economics.md says.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, getAddress } from 'viem'
import { mockAggregatorV3Abi, mockAggregatorV3Bytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createTokenValues, parseTokenPrices } from '../../src/relayer/economics/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { deploy, write } from '../relayer/support/chain.ts'
import { nonces } from './support.ts'

let devnet: Devnet
let payToken: Address

beforeAll(async () => {
  devnet = await startDevnet()
  payToken = getAddress(devnet.manifest.contracts.payToken)
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

const now = () => BigInt(Math.floor(Date.now() / 1000))
/** An aggregator answering `answer` (with `decimals`), updated now. */
const aggregator = async (decimals: number, description: string, answer: bigint) => getAddress(await deploy(devnet, mockAggregatorV3Abi, mockAggregatorV3Bytecode, [decimals, description, answer]))
const setAnswer = (feed: Address, answer: bigint, updatedAt = now()) => write(devnet, 'deployer', { address: feed, abi: mockAggregatorV3Abi, functionName: 'setAnswer', args: [answer, updatedAt] })

describe('what a feed price converts to', () => {
  test('feed:A (native per token), feed:A/B (token and native in one currency), feed:1/B (a token worth one unit of B\'s currency); a fixed rate', async () => {
    // USDC / ETH at 18 decimals: 0.0004 ETH per USDC.
    const usdcEth = await aggregator(18, 'USDC / ETH', 4n * 10n ** 14n)
    // USDC / USD at 8 decimals: 1.0001; ETH / USD at 8 decimals: 2500.
    const usdcUsd = await aggregator(8, 'USDC / USD', 100_010_000n)
    const ethUsd = await aggregator(8, 'ETH / USD', 250_000_000_000n)
    const values = async (price: string) => {
      const { prices, problems } = parseTokenPrices([[payToken, price]], 'RELAYER_TOKENS')
      expect(problems).toEqual([])
      const created = createTokenValues({ client: devnet.publicClient, prices, maxAgeSeconds: 3_600, refreshMs: 60_000, logger: createMemoryLogger() })
      await created.start()
      created.stop()
      return created
    }
    // 10 USDC (10^7 base units, 6 decimals).
    const tenUsdc = 10_000_000n
    expect((await values(`feed:${usdcEth}`)).worth(payToken, tenUsdc)).toBe(4n * 10n ** 15n)
    expect((await values(`feed:${usdcUsd}/${ethUsd}`)).worth(payToken, tenUsdc)).toBe((10n * 10n ** 18n * 100_010_000n) / 250_000_000_000n)
    expect((await values(`feed:1/${ethUsd}`)).worth(payToken, tenUsdc)).toBe(4n * 10n ** 15n)
    expect((await values('0.0004')).worth(payToken, tenUsdc)).toBe(4n * 10n ** 15n)
    // What /info shows of it.
    expect((await values(`feed:1/${ethUsd}`)).accepted()).toEqual([{ token: payToken, symbol: 'USDC', decimals: 6, nativePerToken: '0.0004', source: 'feed', priced: true }])
  })

  test('what RELAYER_TOKENS refuses, each named', () => {
    const { prices, problems } = parseTokenPrices(
      [
        ['0x1234', '0.1'],
        [payToken, 'feed:0xabc'],
        [devnetAccounts.spare.address, '0'],
        [devnetAccounts.payee.address, 'lots'],
        [devnetAccounts.payee.address.toLowerCase(), '1'],
      ],
      'RELAYER_TOKENS',
    )
    expect(prices).toEqual([])
    expect(problems).toEqual([
      'RELAYER_TOKENS: "0x1234" is not a token address (0x followed by 40 hex digits)',
      `RELAYER_TOKENS: token ${payToken}: "0xabc" is not an aggregator address (0x followed by 40 hex digits)`,
      `RELAYER_TOKENS: token ${devnetAccounts.spare.address}: a price of 0 is not a price: a token worth nothing is not accepted (leave it out)`,
      `RELAYER_TOKENS: token ${devnetAccounts.payee.address}: "lots" is not a price: write native units per whole token (e.g. 0.0004) or feed:<aggregator>`,
      `RELAYER_TOKENS: token ${devnetAccounts.payee.address.toLowerCase()} is priced twice`,
    ])
  })
})

describe('a relayer pricing the devnet token by a feed', () => {
  let relayer: TestRelayer
  let feed: Address
  const key = devnetAccounts.relayer.address as Address

  beforeAll(async () => {
    // 0.01 ETH per USDC, as the devnet's fixed price.
    feed = await aggregator(18, 'USDC / ETH', 10n ** 16n)
    relayer = await startTestRelayer(devnet, { env: { RELAYER_TOKENS: `${payToken}=feed:${feed}`, RELAYER_PRICE_MAX_AGE_S: '600', RELAYER_PRICE_REFRESH_MS: '100' } })
  }, 60_000)
  afterAll(async () => {
    await relayer?.stop()
  })

  const order = async () => relayer.post(await signed(devnet, allocationOrder(devnet)))
  const info = async () => (await (await fetch(`${relayer.url}/info`)).json()) as { acceptedTokens: Array<Record<string, unknown> & { priced: boolean; nativePerToken?: string }> }

  test('a fresh positive answer: accepted, and orders settle', async () => {
    expect((await info()).acceptedTokens).toEqual([{ token: payToken, symbol: 'USDC', decimals: 6, nativePerToken: '0.01', source: 'feed', priced: true }])
    expect((await order()).status).toBe(200)
  })

  test('an answer older than RELAYER_PRICE_MAX_AGE_S: the token is not valued, its orders refused 402 before any simulation; a fresh answer brings it back', async () => {
    await setAnswer(feed, 10n ** 16n, now() - 601n)
    await waitFor('the stale answer read', async () => (await info()).acceptedTokens[0]?.priced === false)
    const before = await nonces(devnet, key)
    const refused = await order()
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 402,
      body: {
        ok: false,
        code: 'FEE_BELOW_FLOOR',
        message: expect.stringMatching(new RegExp(`^pay token ${payToken} is not accepted by this relayer \\(feed ${feed}'s answer is 6\\d\\d s old, over RELAYER_PRICE_MAX_AGE_S \\(600 s\\)\\); it accepts no pay token at the moment; pay in an accepted token or choose another relayer \\(GET /info\\)$`)),
      },
    })
    expect(await nonces(devnet, key)).toEqual(before)
    expect(relayer.logger.lines).toContainEqual(expect.stringMatching(new RegExp(`^warn: pay token ${payToken} \\(USDC\\) is not accepted until it can be valued: feed ${feed}'s answer is \\d+ s old`)))
    await setAnswer(feed, 10n ** 16n)
    await waitFor('the fresh answer read', async () => (await info()).acceptedTokens[0]?.priced === true)
    expect((await order()).status).toBe(200)
    expect(relayer.logger.lines).toContain(`pay token ${payToken} (USDC) is valued again (0.01 native per token); accepted`)
  })

  test('an answer of zero, then a negative one: not valued; refused without a tx', async () => {
    for (const answer of [0n, -5n]) {
      await setAnswer(feed, answer)
      await waitFor(`the answer ${answer} read`, () => relayer.logger.lines.some((line) => line.includes(`feed ${feed} answered ${answer} (not a price)`)))
      const before = await nonces(devnet, key)
      const refused = await order()
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
      expect(String(refused.body.message)).toContain(`feed ${feed} answered ${answer} (not a price)`)
      expect(await nonces(devnet, key)).toEqual(before)
    }
    await setAnswer(feed, 10n ** 16n)
    await waitFor('the fresh answer read', async () => (await info()).acceptedTokens[0]?.priced === true)
  })

  test('a price that falls until the fee no longer covers the gas: 402 naming the fee\'s worth', async () => {
    // 10^-8 ETH per USDC: the 0.05 USDC fee is worth 5 × 10^8 wei.
    await setAnswer(feed, 10n ** 10n)
    await waitFor('the low answer read', async () => (await info()).acceptedTokens[0]?.nativePerToken === '0.00000001')
    const refused = await order()
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
    expect(String(refused.body.message)).toStartWith(`the fee does not pay for the gas: 50000 of ${payToken} (USDC) (feeBps 50 of amount 10000000) is worth 500000000 wei,`)
    await setAnswer(feed, 10n ** 16n)
    await waitFor('the usual answer read', async () => (await info()).acceptedTokens[0]?.nativePerToken === '0.01')
  })
})
