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
      '  rate limit: 0.5 requests/s per client, burst 3, client = first X-Forwarded-For entry (RELAYER_TRUST_PROXY=1); over it 429 RATE_LIMITED with Retry-After',
      '  concurrency cap: 8 POST /broker in flight; over it 429 SERVER_BUSY at once',
      '  gas breaker: POST /broker paused (503 INSUFFICIENT_RELAYER_GAS) while the relayer balance is below 42 wei, polled every 250 ms',
      '  CORS: GET /info from any origin; POST /broker from https://a.example, https://b.example and callers without Origin',
    ])
  })
})
