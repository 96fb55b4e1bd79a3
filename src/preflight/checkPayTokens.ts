import type { PublicClient } from 'viem'
import { createTokenValues, type EconomicsConfig, type TokenPrice } from '../relayer/economics/index.ts'
import { silentLogger } from '../shared/index.ts'
import { type CheckResult, fail, pass } from './checkResult.ts'

/** Where to change a token's price, by where it was configured. */
const whereConfigured: Record<TokenPrice['origin'], string> = {
  RELAYER_TOKENS: 'RELAYER_TOKENS',
  manifest: "the manifest's tokens (or RELAYER_TOKENS, which wins)",
  'built-in': 'RELAYER_TOKENS (it wins over the built-in price)',
}

/**
 * Every pay token readable and priced, every feed behind it fresh: the relayer's own token
 * values (tokenValues.ts) read once, one check per token. A built-in token with no code on
 * the chain served is left out, as the relayer leaves it out. No token at all is a failure
 * unless RELAYER_UNPRICED_GAS_BUDGET_WEI lets unpriced tokens through.
 */
export async function checkPayTokens(client: PublicClient, economics: EconomicsConfig): Promise<CheckResult[]> {
  const values = createTokenValues({ client, prices: economics.tokens, maxAgeSeconds: economics.priceMaxAgeSeconds, refreshMs: economics.priceRefreshMs, logger: silentLogger })
  await values.refresh().catch(() => undefined)
  const accepted = new Map(values.accepted().map((token) => [token.token.toLowerCase(), token]))
  const results: CheckResult[] = []
  for (const price of economics.tokens) {
    const token = accepted.get(price.token.toLowerCase())
    if (!token) continue
    const name = `pay token ${values.describe(price.token)}`
    const status = values.status(price.token)
    if (status.priced) {
      results.push(pass(name, `${token.nativePerToken} ETH per token (${token.source === 'fixed' ? 'fixed rate' : 'feed'}, from ${price.origin})`))
      continue
    }
    const why = status.why
    if (status.rpc) {
      results.push(fail(name, `not priced: ${why}`, 'run order-relay check again once RELAYER_RPC_URL answers every read'))
      continue
    }
    const fix = /feed .* old, over RELAYER_PRICE_MAX_AGE_S/.test(why)
      ? `check the feed in ${whereConfigured[price.origin]} is the chain's live aggregator, or raise RELAYER_PRICE_MAX_AGE_S`
      : `correct or remove ${price.token} in ${whereConfigured[price.origin]} (${price.text})`
    results.push(fail(name, `not priced: ${why}`, fix))
  }
  if (results.length === 0) {
    if (economics.unpricedGasBudgetWei > 0n) return [pass('pay tokens', `none priced; RELAYER_UNPRICED_GAS_BUDGET_WEI lets ${economics.unpricedGasBudgetWei} wei of gas an hour through for unpriced tokens`)]
    return [fail('pay tokens', 'no pay token is priced on this chain: every order is refused (FEE_BELOW_FLOOR)', 'set RELAYER_TOKENS=<token>=<native per token or feed:…> (docs/economics.md)')]
  }
  return results
}
