import { describe, expect, test } from 'bun:test'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { describeEdge } from '../../src/relayer/edge/index.ts'
import { ConfigError, readRelayerConfig } from '../../src/relayer/index.ts'

const base = {
  RELAYER_PK: devnetAccounts.relayer.privateKey,
  RELAYER_CHAIN_ID: '31337',
  RELAYER_RPC_URL: 'http://127.0.0.1:8545',
  RELAYER_BROKER: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
}
const edgeOf = (env: Record<string, string>) => readRelayerConfig({ ...base, ...env }).edge

describe('edge configuration', () => {
  test('off by default, with the documented defaults', () => {
    expect(edgeOf({})).toEqual({
      enabled: false,
      ratePerSec: 5,
      rateBurst: 20,
      maxInflight: 64,
      gasFloorWei: 1_000_000_000_000_000n,
      corsOrigins: [],
      trustProxy: false,
      trustedProxies: { kind: 'hops', hops: 1 },
      balancePollMs: 5_000,
    })
    expect(describeEdge(edgeOf({}))).toEqual(['hardened edge: off (set RELAYER_HARDENED=1 to enable)'])
  })

  test.each([
    ['RELAYER_HARDENED', '1'],
    ['RELAYER_RATE_PER_SEC', '2'],
    ['RELAYER_RATE_BURST', '3'],
    ['RELAYER_MAX_INFLIGHT', '8'],
    ['RELAYER_GAS_FLOOR_WEI', '1'],
    ['RELAYER_CORS_ORIGINS', 'https://app.example.com'],
  ])('%s enables it', (name, value) => {
    expect(edgeOf({ [name]: value }).enabled).toBe(true)
  })

  test('RELAYER_TRUST_PROXY and RELAYER_BALANCE_POLL_MS alone do not enable it', () => {
    expect(edgeOf({ RELAYER_TRUST_PROXY: '1', RELAYER_BALANCE_POLL_MS: '100' }).enabled).toBe(false)
  })

  test('origins are normalized as browsers send them', () => {
    expect(edgeOf({ RELAYER_CORS_ORIGINS: 'https://App.Example.com/, http://127.0.0.1:3000, https://x.example:443, *' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://127.0.0.1:3000',
      'https://x.example',
      '*',
    ])
  })

  test('bad values are named', () => {
    expect(() => edgeOf({ RELAYER_CORS_ORIGINS: 'https://app.example.com/path,app.example.com', RELAYER_RATE_PER_SECOND: '5', RELAYER_RATE_PER_SEC: '-1' })).toThrow(
      new ConfigError(
        [
          'invalid relayer configuration:',
          '  - RELAYER_RATE_PER_SECOND is not a known variable (expected RELAYER_RATE_PER_SEC or RELAYER_RATE_BURST)',
          '  - RELAYER_RATE_PER_SEC must be a positive number (got "-1")',
          '  - RELAYER_CORS_ORIGINS entries must be origins like https://app.example.com or http://127.0.0.1:3000, or * (got "https://app.example.com/path")',
          '  - RELAYER_CORS_ORIGINS entries must be origins like https://app.example.com or http://127.0.0.1:3000, or * (got "app.example.com")',
        ].join('\n'),
      ),
    )
  })

  test('RELAYER_TRUSTED_PROXIES: a hop count or CIDRs, only with RELAYER_TRUST_PROXY=1', () => {
    expect(edgeOf({ RELAYER_TRUST_PROXY: '1', RELAYER_TRUSTED_PROXIES: '2' }).trustedProxies).toEqual({ kind: 'hops', hops: 2 })
    const cidrs = edgeOf({ RELAYER_TRUST_PROXY: '1', RELAYER_TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::/32,192.0.2.7' }).trustedProxies
    expect(cidrs.kind === 'cidrs' && cidrs.cidrs.map((c) => c.text)).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7/32'])
    expect(describeEdge(edgeOf({ RELAYER_HARDENED: '1', RELAYER_TRUST_PROXY: '1', RELAYER_TRUSTED_PROXIES: '10.0.0.0/8' }))[1]).toBe(
      '  rate limit: 5 requests/s per client, burst 20, client = the rightmost X-Forwarded-For address outside the trusted proxies 10.0.0.0/8 (RELAYER_TRUST_PROXY=1); over it 429 RATE_LIMITED with Retry-After',
    )
    expect(() => edgeOf({ RELAYER_TRUSTED_PROXIES: '1' })).toThrow('RELAYER_TRUSTED_PROXIES is only used with RELAYER_TRUST_PROXY=1: set both, or neither')
    expect(() => edgeOf({ RELAYER_TRUST_PROXY: '1', RELAYER_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(
      'RELAYER_TRUSTED_PROXIES entries must be CIDRs like 10.0.0.0/8 or 2001:db8::/32, or the whole value a hop count (got "10.0.0.0/33")',
    )
    expect(() => edgeOf({ RELAYER_TRUST_PROXY: '1', RELAYER_TRUSTED_PROXIES: '0' })).toThrow('RELAYER_TRUSTED_PROXIES as a hop count must be from 1 to 32')
  })

  test('describeEdge names each feature with its limits', () => {
    expect(describeEdge(edgeOf({ RELAYER_HARDENED: '1' }))).toEqual([
      'hardened edge: on',
      '  rate limit: 5 requests/s per client, burst 20, client = socket address; over it 429 RATE_LIMITED with Retry-After',
      '  concurrency cap: 64 POST /broker in flight; over it 429 SERVER_BUSY at once',
      '  gas breaker: POST /broker paused (503 INSUFFICIENT_RELAYER_GAS) while the relayer balance is below 1000000000000000 wei, polled every 5000 ms',
      '  CORS: GET /info from any origin; POST /broker from callers without Origin only (no browser origin listed in RELAYER_CORS_ORIGINS)',
    ])
    const custom = describeEdge(
      edgeOf({
        RELAYER_RATE_PER_SEC: '0.5',
        RELAYER_RATE_BURST: '3',
        RELAYER_MAX_INFLIGHT: '8',
        RELAYER_GAS_FLOOR_WEI: '42',
        RELAYER_BALANCE_POLL_MS: '250',
        RELAYER_TRUST_PROXY: '1',
        RELAYER_CORS_ORIGINS: 'https://a.example,https://b.example',
      }),
    )
    expect(custom).toEqual([
      'hardened edge: on',
      '  rate limit: 0.5 requests/s per client, burst 3, client = the rightmost X-Forwarded-For entry (one trusted proxy in front) (RELAYER_TRUST_PROXY=1); over it 429 RATE_LIMITED with Retry-After',
      '  concurrency cap: 8 POST /broker in flight; over it 429 SERVER_BUSY at once',
      '  gas breaker: POST /broker paused (503 INSUFFICIENT_RELAYER_GAS) while the relayer balance is below 42 wei, polled every 250 ms',
      '  CORS: GET /info from any origin; POST /broker from https://a.example, https://b.example and callers without Origin',
    ])
  })
})
